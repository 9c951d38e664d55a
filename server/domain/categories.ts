/**
 * Transaction and transfer categories (the Category schema) and their display labels
 * (`categoryLabel`: `FOOD_BEVERAGE` → `Food & Beverage`). A ledger record's label is written by
 * the database (`category_label()`, server/database/migrations/001-baseline.ts); these labels are
 * what it must give, and test/store/store.test.ts compares the two.
 */

/** The 37 categories, in the order the Category schema lists them. */
export const CATEGORIES = [
  'AGRICULTURE',
  'ART',
  'AUTOMOTIVE',
  'CASH',
  'CHARITY',
  'CLOTHING',
  'CONSTRUCTION',
  'DESIGN',
  'E_COMMERCE',
  'EDUCATION',
  'ENERGY',
  'ENGINEERING',
  'ENTERTAINMENT',
  'FINANCIAL_SERVICES',
  'FITNESS',
  'FUEL',
  'FOOD_BEVERAGE',
  'GOVERNMENT',
  'HOSPITALITY',
  'INSURANCE',
  'LEGAL',
  'LOGISTICS',
  'MANUFACTURING',
  'MARKETING',
  'MEDIA',
  'MEDICAL',
  'MEMBERSHIP',
  'PHARMACEUTICAL',
  'PROFESSIONAL_SERVICES',
  'REAL_ESTATE',
  'RETAIL',
  'TECHNOLOGY',
  'TOWING',
  'TRANSPORTATION',
  'TRAVEL',
  'UTILITIES',
  'OTHER',
] as const;

export type Category = (typeof CATEGORIES)[number];

/** Display labels. A `Record` over the union, so a missing or extra category fails to compile. */
export const CATEGORY_LABELS: Readonly<Record<Category, string>> = Object.freeze({
  AGRICULTURE: 'Agriculture',
  ART: 'Art',
  AUTOMOTIVE: 'Automotive',
  CASH: 'Cash',
  CHARITY: 'Charity',
  CLOTHING: 'Clothing',
  CONSTRUCTION: 'Construction',
  DESIGN: 'Design',
  E_COMMERCE: 'E-commerce',
  EDUCATION: 'Education',
  ENERGY: 'Energy',
  ENGINEERING: 'Engineering',
  ENTERTAINMENT: 'Entertainment',
  FINANCIAL_SERVICES: 'Financial Services',
  FITNESS: 'Fitness',
  FUEL: 'Fuel',
  FOOD_BEVERAGE: 'Food & Beverage',
  GOVERNMENT: 'Government',
  HOSPITALITY: 'Hospitality',
  INSURANCE: 'Insurance',
  LEGAL: 'Legal',
  LOGISTICS: 'Logistics',
  MANUFACTURING: 'Manufacturing',
  MARKETING: 'Marketing',
  MEDIA: 'Media',
  MEDICAL: 'Medical',
  MEMBERSHIP: 'Membership',
  PHARMACEUTICAL: 'Pharmaceutical',
  PROFESSIONAL_SERVICES: 'Professional Services',
  REAL_ESTATE: 'Real Estate',
  RETAIL: 'Retail',
  TECHNOLOGY: 'Technology',
  TOWING: 'Towing',
  TRANSPORTATION: 'Transportation',
  TRAVEL: 'Travel',
  UTILITIES: 'Utilities',
  OTHER: 'Other',
});

const CATEGORY_SET: ReadonlySet<string> = new Set(CATEGORIES);

export function isCategory(value: string): value is Category {
  return CATEGORY_SET.has(value);
}

export function categoryLabel(category: Category): string {
  return CATEGORY_LABELS[category];
}
