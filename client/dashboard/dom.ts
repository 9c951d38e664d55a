/** Small DOM helpers: elements built from data, text set as text (never parsed as HTML). */

type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

/**
 * `h('button', { type: 'button', onclick: approve }, 'Approve')`. An `on…` attribute with a
 * function becomes a listener; `true` sets an empty attribute, `false`, null and undefined none.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
    );
  }
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

let nextId = 0;
/** A unique id, for tying a <label> to its control. */
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

/** A labelled control: the <label for> and the control (an <input>, <select> or <textarea>). */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  if (control.id === '') control.id = uid('f');
  const hintElement = hint === undefined ? undefined : h('small', { id: `${control.id}-hint`, class: 'hint' }, hint);
  if (hintElement !== undefined) control.setAttribute('aria-describedby', hintElement.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintElement);
}

/** A <select> of values, the first option `anyLabel` (value '') when given. */
export function select(
  name: string,
  values: readonly string[],
  anyLabel?: string,
  label: (value: string) => string = (value) => value,
): HTMLSelectElement {
  return h(
    'select',
    { name },
    anyLabel === undefined ? null : h('option', { value: '' }, anyLabel),
    ...values.map((value) => h('option', { value }, label(value))),
  );
}

/** A table inside a region that scrolls sideways on a narrow screen, so the page itself does not. */
export function table(caption: string, headings: readonly string[], body: HTMLTableSectionElement): HTMLElement {
  const id = uid('t');
  return h(
    'div',
    { class: 'table-scroll', role: 'region', 'aria-labelledby': id, tabindex: 0 },
    h(
      'table',
      {},
      h('caption', { id }, caption),
      h('thead', {}, h('tr', {}, ...headings.map((text) => h('th', { scope: 'col' }, text)))),
      body,
    ),
  );
}

/** Says `text` to screen readers (the page's polite live region) and shows it in `where`, if given. */
export function announce(text: string): void {
  const status = document.getElementById('status');
  if (status !== null) status.textContent = text;
}

/** A message box: `role="alert"` for errors, a plain note otherwise. */
export function message(kind: 'error' | 'ok', text: string): HTMLElement {
  return h('p', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
