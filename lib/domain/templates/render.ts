import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { MAX_MESSAGE_BYTES } from "../../contract/email";
import { renderOnWorker, RenderTimeout, type WorkerReply } from "./render-pool";

/**
 * Rendering a template's parts with a model (docs/contract.md §14,
 * docs/adr/0121): Mustache (bounded-mustache.cjs), `{{name}}` HTML-escaped in
 * the HTML part only. Bounded three ways: the template's size (at creation,
 * MAX_TEMPLATE_BYTES), the output and the steps (as it renders), and time.
 * Small renders run here; any other on a worker thread, where a time limit
 * can stop them.
 */

/** The three parts of a template, or of its render: HTML or text, or both. */
export interface TemplateParts {
  subject: string;
  html?: string;
  text?: string;
}

export type TemplatePart = "subject" | "html" | "text";

export type RenderOutcome =
  | { ok: true; rendered: TemplateParts }
  /** A bound stopped it: the output, the steps, the nesting of the model or sections, or the time. */
  | { ok: false; reason: "output" | "steps" | "depth" | "time" }
  /** Mustache cannot parse this part (an unclosed tag or section). */
  | { ok: false; reason: "syntax"; part: TemplatePart };

/** Subject, HTML and text of one version together, in UTF-8 bytes. */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;

interface Budget {
  /** Characters of the three rendered parts together. */
  maxOutput: number;
  /** Tokens visited (and sections entered): what nested sections multiply. */
  maxSteps: number;
}

/** What a render may cost at most: the largest message POST /email accepts, and about a second of a core. */
const FULL_BUDGET: Budget = { maxOutput: MAX_MESSAGE_BYTES, maxSteps: 5_000_000 };
/** A worker render that takes longer is stopped: a backstop, the steps and output bounds stop it first on a machine that is not starved. */
const RENDER_TIMEOUT_MS = 30_000;

/** On the event loop only when the template and the model are this small, and the render stays within SMALL_BUDGET. */
const SMALL_TEMPLATE_CHARS = 16 * 1024;
const SMALL_MODEL = { nodes: 2_000, chars: 64 * 1024 };
const SMALL_BUDGET: Budget = { maxOutput: 256 * 1024, maxSteps: 20_000 };

interface BoundedMustache {
  renderParts(parts: TemplateParts, model: unknown, budget: Budget): { subject: string; html?: string; text?: string };
  BudgetExceeded: new (...args: never[]) => Error & { limit: "output" | "steps" | "depth" };
  TemplateSyntaxError: new (...args: never[]) => Error & { part: TemplatePart };
}

const RENDERER_PATH = fileURLToPath(new URL("./bounded-mustache.cjs", import.meta.url));
let renderer: BoundedMustache | undefined;
const load = () => (renderer ??= createRequire(import.meta.url)(RENDERER_PATH) as BoundedMustache);

/** Renders `parts` with `model` (a JSON value; absent = `{}`). Never throws for a template or model, only for a defect. */
export async function renderTemplate(parts: TemplateParts, model: unknown): Promise<RenderOutcome> {
  if (isSmall(parts, model)) {
    const here = renderHere(parts, model);
    // Past the small budget: the whole render again, on a worker with the full one.
    if (here.ok || here.reason === "syntax" || here.reason === "depth") return here;
  }
  let reply: WorkerReply<TemplateParts>;
  try {
    reply = await renderOnWorker<TemplateParts>(RENDERER_PATH, { parts, model, budget: FULL_BUDGET }, RENDER_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof RenderTimeout) return { ok: false, reason: "time" };
    throw err;
  }
  if (reply.ok) return { ok: true, rendered: withoutAbsent(reply.rendered) };
  return "part" in reply ? { ok: false, reason: "syntax", part: reply.part } : { ok: false, reason: reply.limit };
}

/** The first part Mustache cannot parse, or undefined: a render with an empty model (which only parses and copies text). */
export async function unparsablePart(parts: TemplateParts): Promise<TemplatePart | undefined> {
  const outcome = await renderTemplate(parts, {});
  return !outcome.ok && outcome.reason === "syntax" ? outcome.part : undefined;
}

function renderHere(parts: TemplateParts, model: unknown): RenderOutcome {
  const { renderParts, BudgetExceeded, TemplateSyntaxError } = load();
  try {
    return { ok: true, rendered: withoutAbsent(renderParts(parts, model, SMALL_BUDGET)) };
  } catch (err) {
    if (err instanceof BudgetExceeded) return { ok: false, reason: err.limit };
    if (err instanceof TemplateSyntaxError) return { ok: false, reason: "syntax", part: err.part };
    throw err;
  }
}

/** Structured clone and the renderer give `undefined` or `null` for an absent part: neither is kept. */
function withoutAbsent(p: TemplateParts): TemplateParts {
  return { subject: p.subject, ...(typeof p.html === "string" && { html: p.html }), ...(typeof p.text === "string" && { text: p.text }) };
}

/** Small template and model: a walk that stops as soon as the model is past SMALL_MODEL. */
function isSmall(parts: TemplateParts, model: unknown): boolean {
  if (parts.subject.length + (parts.html?.length ?? 0) + (parts.text?.length ?? 0) > SMALL_TEMPLATE_CHARS) return false;
  let nodes = 0;
  let chars = 0;
  const stack: unknown[] = [model];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > SMALL_MODEL.nodes) return false;
    if (typeof v === "string") chars += v.length;
    else if (Array.isArray(v)) {
      if (nodes + v.length > SMALL_MODEL.nodes) return false;
      stack.push(...v);
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      if (nodes + entries.length > SMALL_MODEL.nodes) return false;
      for (const [k, child] of entries) {
        chars += k.length;
        stack.push(child);
      }
    }
    if (chars > SMALL_MODEL.chars) return false;
  }
  return true;
}
