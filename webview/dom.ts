/**
 * The only way the panel builds DOM: elements with attributes and text children. Text
 * always goes through `textContent`/text nodes (never markup), and event-handler
 * attributes are refused, so tool output cannot become script or elements.
 */

/** A child: a node, text (becomes a text node), or nothing. */
export type Child = Node | string | null | undefined | false;

/** Attribute values: strings are set, `true` sets an empty attribute, false/undefined skip it. */
export type Attrs = Record<string, string | boolean | undefined>;

/** Creates an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    // Inline handlers would also be blocked by the CSP; refuse them here too.
    if (/^on/i.test(name) || name.toLowerCase() === 'style') throw new Error(`attribute ${name} is not allowed`);
    if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  append(el, ...children);
  return el;
}

/** Appends children (strings as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** Replaces all children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A codicon glyph (decorative: hidden from screen readers). */
export function icon(name: string): HTMLSpanElement {
  return h('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}
