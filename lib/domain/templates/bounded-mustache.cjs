/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS: see below */
"use strict";

/**
 * Template rendering with bounds, on the maintained Mustache implementation
 * (the `mustache` package; docs/adr/0121-template-rendering-bounded-and-off-the-event-loop.md).
 * Plain CommonJS so that the API's event loop (render.ts, small renders) and
 * the render worker threads (render-pool.ts, large ones) load this same file.
 *
 * - `{{name}}` is escaped by the escape function given: HTML escaping for
 *   HTML, none for the Subject and the plain text, where `<b>Ann</b>` stays
 *   as typed (docs/contract.md §14).
 * - The model is copied into objects without a prototype, so a name finds
 *   only the model's own members (`{{constructor}}` is a missing variable,
 *   rendered empty), and an object or array named as a value renders empty.
 * - Output characters, steps (tokens visited) and model depth are counted as
 *   the render goes and it stops with a BudgetExceeded past a bound: a small
 *   template cannot make gigabytes or hours of work with nested sections.
 */

const Mustache = require("mustache");

class BudgetExceeded extends Error {
  /** @param {"output" | "steps" | "depth"} limit */
  constructor(limit) {
    super(`the render exceeds its ${limit} budget`);
    this.name = "BudgetExceeded";
    this.limit = limit;
  }
}

/** Mustache could not parse a part ("subject", "html" or "text"): an unclosed tag or section. */
class TemplateSyntaxError extends Error {
  constructor(part, cause) {
    super(`the ${part} template cannot be parsed: ${cause && cause.message}`);
    this.name = "TemplateSyntaxError";
    this.part = part;
  }
}

/** Deeper models are refused: the copy below and Mustache's lookups recurse. */
const MAX_MODEL_DEPTH = 64;

/** The JSON value with prototype-free objects and arrays. */
function ownValues(value, depth) {
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_MODEL_DEPTH) throw new BudgetExceeded("depth");
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = ownValues(value[i], depth + 1);
    return Object.setPrototypeOf(out, null);
  }
  const out = Object.create(null);
  for (const key of Object.keys(value)) out[key] = ownValues(value[key], depth + 1);
  return out;
}

/** What a `{{name}}` prints: strings, numbers and booleans; anything else (an object, a list) nothing. */
function textOf(value) {
  const type = typeof value;
  return type === "string" ? value : type === "number" || type === "boolean" ? String(value) : "";
}

const noEscape = (text) => text;

/**
 * Parsed templates, by their text: Mustache parses about a character per
 * microsecond, so a batch that sends one 1 MB template 500 times parses it
 * once. Least recently used first out, bounded by count and by characters.
 * Tokens are only read by a render, never changed.
 */
const PARSED_MAX_ENTRIES = 32;
const PARSED_MAX_CHARS = 8 * 1024 * 1024;
const parsed = new Map();
let parsedChars = 0;

function parseCached(writer, template) {
  const hit = parsed.get(template);
  if (hit) {
    parsed.delete(template);
    parsed.set(template, hit);
    return hit;
  }
  const tokens = writer.parseUncached(template);
  if (template.length <= PARSED_MAX_CHARS) {
    parsed.set(template, tokens);
    parsedChars += template.length;
    for (const [key] of parsed) {
      if (parsed.size <= PARSED_MAX_ENTRIES && parsedChars <= PARSED_MAX_CHARS) break;
      parsed.delete(key);
      parsedChars -= key.length;
    }
  }
  return tokens;
}

/**
 * Mustache's Context without its lookup cache: that cache is a plain object
 * keyed by the template's names, so a name such as `hasOwnProperty` or
 * `__proto__` would overwrite its own methods (a TypeError mid-render). Only
 * "." (the view itself) is answered, as the original cache does.
 */
class OwnContext extends Mustache.Context {
  /** `charge(steps)`: the render's step count (renderParts), which a lookup adds to. */
  constructor(view, parent, charge) {
    super(view, parent);
    this.charge = charge;
    this.depth = parent ? parent.depth + 1 : 1;
    this.cache = new Proxy(Object.create(null), {
      get: (_, key) => (key === "hasOwnProperty" ? (name) => name === "." : key === "." ? view : undefined),
      set: () => true,
    });
  }
  push(view) {
    return new OwnContext(view, this, this.charge);
  }
  /**
   * A lookup walks every enclosing section's view, and each dotted name part
   * on each: a name inside 60 nested sections costs 60 times a name at the
   * top. Counted as steps, so that a step costs about the same whatever the
   * template (docs/adr/0122).
   */
  lookup(name) {
    let parts = 1;
    for (let i = name.indexOf("."); i !== -1; i = name.indexOf(".", i + 1)) parts++;
    this.charge(this.depth * parts);
    return super.lookup(name);
  }
}

/**
 * Renders the parts ({subject, html, text}; html or text may be absent) with
 * one model and one budget ({maxOutput: characters of all parts together,
 * maxSteps}). Throws BudgetExceeded past a bound, TemplateSyntaxError for
 * a part Mustache cannot parse.
 */
function renderParts(parts, model, budget) {
  let output = 0;
  let steps = 0;
  const charge = (n) => {
    steps += n;
    if (steps > budget.maxSteps) throw new BudgetExceeded("steps");
  };
  const view = new OwnContext(ownValues(model === undefined ? {} : model, 0), undefined, charge);
  const count = (text) => {
    if (text === undefined) return undefined;
    output += text.length;
    if (output > budget.maxOutput) throw new BudgetExceeded("output");
    return text;
  };

  class BoundedWriter extends Mustache.Writer {
    renderTokens(tokens, context, partials, originalTemplate, config) {
      charge(tokens.length + 1);
      return super.renderTokens(tokens, context, partials, originalTemplate, config);
    }
    rawValue(token) {
      return count(token[1]);
    }
    escapedValue(token, context, config) {
      const value = context.lookup(token[1]);
      if (value === null || value === undefined) return undefined;
      return count((this.getConfigEscape(config) || Mustache.escape)(textOf(value)));
    }
    unescapedValue(token, context) {
      const value = context.lookup(token[1]);
      if (value === null || value === undefined) return undefined;
      return count(textOf(value));
    }
    parseUncached(template) {
      return super.parse(template);
    }
    parse(template) {
      return parseCached(this, template);
    }
    // No partials: `{{> name}}` renders nothing.
    renderPartial() {
      return undefined;
    }
  }

  const render = (template, escape) => {
    if (template === undefined || template === null) return undefined;
    const writer = new BoundedWriter();
    // Mustache's own cache is unbounded: parseCached (above) is used instead.
    writer.templateCache = undefined;
    try {
      return writer.render(template, view, undefined, { escape });
    } catch (err) {
      // Sections nested deeper than the stack: a bound like the others.
      if (err instanceof RangeError) throw new BudgetExceeded("depth");
      if (err instanceof BudgetExceeded) throw err;
      throw new TemplateSyntaxError(part, err);
    }
  };

  let part = "subject";
  const subject = render(parts.subject, noEscape);
  part = "html";
  const html = render(parts.html, Mustache.escape);
  part = "text";
  const text = render(parts.text, noEscape);
  return { subject, html, text };
}

module.exports = { renderParts, BudgetExceeded, TemplateSyntaxError };
