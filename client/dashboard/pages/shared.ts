/** Pieces the list views share: the "More" button of keyset paging and a page's heading. */
import { h } from '../dom.js';

/**
 * A list that pages with the API's `nextCursor`: `load(cursor)` fetches and renders one page and
 * returns the next cursor (undefined on the last page); the "More" button asks for it.
 */
export function morePager(
  load: (cursor: string | undefined) => Promise<string | undefined>,
  label: string,
): { element: HTMLElement; reset: () => Promise<void> } {
  const button = h('button', { type: 'button', class: 'secondary more' }, `More ${label}`);
  const element = h('p', { class: 'pager' }, button);
  let cursor: string | undefined;
  const next = async (from: string | undefined): Promise<void> => {
    button.disabled = true;
    cursor = await load(from);
    button.disabled = false;
    button.hidden = cursor === undefined;
  };
  button.addEventListener('click', () => void next(cursor));
  return { element, reset: () => next(undefined) };
}

export function heading(title: string, intro: string): HTMLElement[] {
  return [h('h1', {}, title), h('p', { class: 'muted' }, intro)];
}
