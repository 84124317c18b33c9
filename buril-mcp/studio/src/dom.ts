/** Small helpers for building the page's elements. */

type Child = Node | string | null | undefined | false;

/** An element `tag` with `attributes` (`class`, `aria-*`, `data-*`, …) and `children`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: { readonly [name: string]: string | boolean | undefined } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) {
      continue;
    }
    element.setAttribute(name, value === true ? "" : value);
  }
  append(element, ...children);
  return element;
}

/** Appends `children`, skipping the empty ones. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) {
      continue;
    }
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces the children of `parent`. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild !== null) {
    parent.removeChild(parent.firstChild);
  }
  append(parent, ...children);
}

/** A unique id for labels and descriptions. */
let next = 0;
export function uid(prefix: string): string {
  next += 1;
  return `${prefix}-${next}`;
}

/** Says `text` to screen readers and shows it in the status line. */
export function announce(text: string): void {
  const status = document.getElementById("status");
  if (status !== null) {
    status.textContent = text;
  }
}

/** JSON, indented. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}

/** Whether `value` is a plain JSON object. */
export function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
