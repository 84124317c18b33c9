/**
 * A form built from a JSON Schema (as schemars writes a tool's input): strings, numbers within
 * their bounds, booleans, enums as choices, optional fields, nested objects, arrays, defaults;
 * anything else as JSON. Each field knows its JSON pointer, so that the server's validation
 * problems are shown next to the field they are about.
 */

import { append, h, isObject, replace, uid } from "./dom.js";

type Schema = { readonly [key: string]: unknown };

/** A field of the form. */
export interface Field {
  /** The field's element. */
  readonly element: HTMLElement;
  /** Its value (`undefined`: left out). */
  read(): unknown;
  /** Shows `problems` (by JSON pointer) at the fields they name; answers those it showed. */
  show(problems: ReadonlyMap<string, readonly string[]>): Set<string>;
}

/** The form of `schema`, the root of its `$ref`s. */
export function formOf(schema: unknown): Field {
  const root = isObject(schema) ? schema : {};
  return field(root, root, "", "input", true);
}

/** `schema` with its `$ref` (`#/$defs/X`, `#/definitions/X`) resolved, and `Option<T>`'s `null` taken out. */
function resolve(schema: Schema, root: Schema): { schema: Schema; nullable: boolean } {
  let current = schema;
  for (let depth = 0; depth < 32; depth += 1) {
    const reference = current["$ref"];
    if (typeof reference === "string" && reference.startsWith("#/")) {
      let target: unknown = root;
      for (const part of reference.slice(2).split("/")) {
        target = isObject(target) ? target[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
      }
      const { $ref: _ignored, ...rest } = current;
      current = { ...(isObject(target) ? target : {}), ...rest };
      continue;
    }
    const variants = current["anyOf"] ?? current["oneOf"];
    if (Array.isArray(variants) && variants.length === 2) {
      const others = variants.filter((v) => !(isObject(v) && v["type"] === "null"));
      if (others.length === 1 && isObject(others[0])) {
        const { anyOf: _a, oneOf: _o, ...rest } = current;
        return { schema: { ...resolve(others[0], root).schema, ...rest }, nullable: true };
      }
    }
    const type = current["type"];
    if (Array.isArray(type) && type.includes("null") && type.length === 2) {
      return { schema: { ...current, type: type.find((t) => t !== "null") }, nullable: true };
    }
    return { schema: current, nullable: false };
  }
  return { schema: current, nullable: false };
}

function field(raw: Schema, root: Schema, pointer: string, label: string, required: boolean): Field {
  const { schema, nullable } = resolve(raw, root);
  const optional = !required || nullable;
  const type = schema["type"];
  if (Array.isArray(schema["enum"])) {
    return choice(schema, pointer, label, optional, schema["enum"] as unknown[]);
  }
  if (type === "object" || isObject(schema["properties"])) {
    return object(schema, root, pointer, label, optional);
  }
  if (type === "array") {
    return array(schema, root, pointer, label, optional);
  }
  if (type === "boolean") {
    return boolean(schema, pointer, label, optional);
  }
  if (type === "string" || type === "number" || type === "integer") {
    return scalar(schema, pointer, label, optional, type);
  }
  return json(schema, pointer, label, optional);
}

/** The problems of `pointer`, shown in `place`. */
function problemsAt(place: HTMLElement, control: HTMLElement | null, pointer: string) {
  return (problems: ReadonlyMap<string, readonly string[]>): Set<string> => {
    const mine = problems.get(pointer) ?? [];
    replace(place, ...mine.map((message) => h("span", {}, message)));
    place.hidden = mine.length === 0;
    control?.setAttribute("aria-invalid", mine.length > 0 ? "true" : "false");
    return new Set(mine.length > 0 ? [pointer] : []);
  };
}

function labelled(label: string, optional: boolean, schema: Schema, control: HTMLElement, id: string) {
  const problem = h("p", { class: "problem", id: `${id}-problem`, hidden: true });
  const description = typeof schema["description"] === "string" ? schema["description"] : "";
  const help = description === "" ? null : h("p", { class: "help", id: `${id}-help` }, description);
  control.setAttribute("aria-describedby", [help === null ? "" : `${id}-help`, `${id}-problem`].join(" ").trim());
  const element = h(
    "div",
    { class: "field" },
    h("label", { for: id }, label, optional ? h("span", { class: "optional" }, " (optional)") : null),
    control,
    help,
    problem,
  );
  return { element, problem };
}

function scalar(schema: Schema, pointer: string, label: string, optional: boolean, type: string): Field {
  const id = uid("field");
  const numeric = type !== "string";
  const input = h("input", {
    id,
    name: pointer,
    type: numeric ? "number" : "text",
    "data-pointer": pointer,
  });
  if (numeric) {
    input.step = type === "integer" ? "1" : "any";
    const bound = (key: string) => (typeof schema[key] === "number" ? String(schema[key]) : undefined);
    const min = bound("minimum");
    const max = bound("maximum");
    if (min !== undefined) input.min = min;
    if (max !== undefined) input.max = max;
  } else {
    if (typeof schema["maxLength"] === "number") input.maxLength = schema["maxLength"];
    if (typeof schema["pattern"] === "string") input.placeholder = schema["pattern"];
  }
  if (schema["default"] !== undefined && schema["default"] !== null) {
    input.value = String(schema["default"]);
  }
  if (!optional) {
    input.required = true;
  }
  const { element, problem } = labelled(label, optional, schema, input, id);
  return {
    element,
    read: () => {
      if (input.value === "" && optional) {
        return undefined;
      }
      if (!numeric) {
        return input.value;
      }
      // A number the browser cannot read is sent as written: the server says what is wrong.
      const number = Number(input.value);
      return input.value.trim() !== "" && Number.isFinite(number) ? number : input.value;
    },
    show: problemsAt(problem, input, pointer),
  };
}

function boolean(schema: Schema, pointer: string, label: string, optional: boolean): Field {
  const id = uid("field");
  if (optional) {
    // Left out, true or false.
    return choice(schema, pointer, label, true, [true, false]);
  }
  const input = h("input", { id, type: "checkbox", "data-pointer": pointer });
  input.checked = schema["default"] === true;
  const { element, problem } = labelled(label, false, schema, input, id);
  element.classList.add("check");
  return { element, read: () => input.checked, show: problemsAt(problem, input, pointer) };
}

function choice(schema: Schema, pointer: string, label: string, optional: boolean, values: unknown[]): Field {
  const id = uid("field");
  const select = h("select", { id, "data-pointer": pointer });
  if (optional) {
    append(select, h("option", { value: "" }, "(not set)"));
  }
  values.forEach((value, at) => {
    const option = h("option", { value: String(at) }, typeof value === "string" ? value : JSON.stringify(value));
    if (schema["default"] === value) {
      option.selected = true;
    }
    append(select, option);
  });
  const { element, problem } = labelled(label, optional, schema, select, id);
  return {
    element,
    read: () => (select.value === "" ? undefined : values[Number(select.value)]),
    show: problemsAt(problem, select, pointer),
  };
}

function json(schema: Schema, pointer: string, label: string, optional: boolean): Field {
  const id = uid("field");
  const area = h("textarea", { id, rows: "3", class: "json", "data-pointer": pointer, spellcheck: "false" });
  if (schema["default"] !== undefined) {
    area.value = JSON.stringify(schema["default"]);
  }
  const { element, problem } = labelled(`${label} (JSON)`, optional, schema, area, id);
  return {
    element,
    read: () => {
      if (area.value.trim() === "") {
        return optional ? undefined : null;
      }
      try {
        return JSON.parse(area.value) as unknown;
      } catch {
        return area.value;
      }
    },
    show: problemsAt(problem, area, pointer),
  };
}

function object(schema: Schema, root: Schema, pointer: string, label: string, optional: boolean): Field {
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as unknown[]).map(String) : []);
  const fields: [string, Field][] = Object.entries(properties).map(([name, property]) => [
    name,
    field(isObject(property) ? property : {}, root, `${pointer}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`, name, required.has(name)),
  ]);
  const problem = h("p", { class: "problem", hidden: true });
  const body = fields.map(([, f]) => f.element);
  const element =
    pointer === ""
      ? h("div", { class: "object" }, problem, ...body)
      : h("fieldset", { class: "object" }, h("legend", {}, label, optional ? " (optional)" : ""), problem, ...body);
  const own = problemsAt(problem, null, pointer);
  return {
    element,
    read: () => {
      const value: { [key: string]: unknown } = {};
      let any = false;
      for (const [name, f] of fields) {
        const read = f.read();
        if (read !== undefined) {
          value[name] = read;
          any = true;
        }
      }
      return optional && !any && pointer !== "" ? undefined : value;
    },
    show: (problems) => {
      const shown = own(problems);
      for (const [, f] of fields) {
        for (const p of f.show(problems)) shown.add(p);
      }
      return shown;
    },
  };
}

function array(schema: Schema, root: Schema, pointer: string, label: string, optional: boolean): Field {
  const items = isObject(schema["items"]) ? schema["items"] : {};
  const list = h("ol", { class: "items" });
  const problem = h("p", { class: "problem", hidden: true });
  const entries: { field: Field; row: HTMLElement }[] = [];
  const renumber = () => {
    entries.forEach((entry, at) => {
      const legend = entry.row.querySelector(".item-label");
      if (legend !== null) legend.textContent = `${label}[${at}]`;
    });
  };
  const add = (value?: unknown) => {
    const at = entries.length;
    const itemField = field(items, root, `${pointer}/${at}`, `${label}[${at}]`, true);
    const remove = h("button", { type: "button", class: "small" }, "Remove");
    const row = h("li", {}, h("span", { class: "item-label", hidden: true }), itemField.element, remove);
    const entry = { field: itemField, row };
    remove.addEventListener("click", () => {
      entries.splice(entries.indexOf(entry), 1);
      row.remove();
      renumber();
    });
    entries.push(entry);
    append(list, row);
    if (value !== undefined) {
      const control = row.querySelector<HTMLInputElement>("input, select, textarea");
      if (control !== null) control.value = typeof value === "string" ? value : JSON.stringify(value);
    }
  };
  const addButton = h("button", { type: "button", class: "small" }, `Add to ${label}`);
  addButton.addEventListener("click", () => add());
  if (Array.isArray(schema["default"])) {
    for (const value of schema["default"] as unknown[]) add(value);
  }
  const element = h("fieldset", { class: "array" }, h("legend", {}, label, optional ? " (optional)" : ""), problem, list, addButton);
  const own = problemsAt(problem, null, pointer);
  return {
    element,
    read: () => (optional && entries.length === 0 ? undefined : entries.map((entry) => entry.field.read())),
    show: (problems) => {
      const shown = own(problems);
      for (const entry of entries) {
        for (const p of entry.field.show(problems)) shown.add(p);
      }
      return shown;
    },
  };
}
