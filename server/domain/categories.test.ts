import { describe, expect, it } from 'vitest';
import { CATEGORIES, CATEGORY_LABELS, categoryLabel, isCategory } from './categories.js';

describe('categories', () => {
  it('lists the 37 categories once each', () => {
    expect(CATEGORIES).toHaveLength(37);
    expect(new Set(CATEGORIES).size).toBe(37);
    expect(Object.keys(CATEGORY_LABELS).sort()).toEqual([...CATEGORIES].sort());
  });

  it.each([
    ['FOOD_BEVERAGE', 'Food & Beverage'],
    ['E_COMMERCE', 'E-commerce'],
    ['FINANCIAL_SERVICES', 'Financial Services'],
    ['PROFESSIONAL_SERVICES', 'Professional Services'],
    ['REAL_ESTATE', 'Real Estate'],
    ['AGRICULTURE', 'Agriculture'],
    ['OTHER', 'Other'],
  ] as const)('labels %s as %j', (category, label) => {
    expect(categoryLabel(category)).toBe(label);
  });

  it.each(CATEGORIES.map((c) => [c]))('%s has a non-empty, trimmed label', (category) => {
    const label = categoryLabel(category);
    expect(label.length).toBeGreaterThan(0);
    expect(label.trim()).toBe(label);
  });

  it.each([
    ['FUEL', true],
    ['fuel', false],
    ['', false],
    ['FOOD', false],
    ['toString', false],
  ] as const)('isCategory(%j) is %s', (value, want) => {
    expect(isCategory(value)).toBe(want);
  });
});
