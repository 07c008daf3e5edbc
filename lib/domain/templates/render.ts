import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { MAX_MESSAGE_BYTES } from "../../contract/email";
import { RenderLanes } from "./render-lanes";
import { renderOnWorker, RenderTimeout, type WorkerReply } from "./render-pool";

/**
 * Rendering a template's parts with a model (docs/contract.md §14,
 * docs/adr/0121): Mustache (bounded-mustache.cjs), `{{name}}` HTML-escaped in
 * the HTML part only. Bounded three ways: the template's size (at creation,
 * MAX_TEMPLATE_BYTES), the output and the steps (as it renders), and time.
 * Small renders run here; any other on a worker thread, where a time limit
 * can stop them. Every render waits its turn in its account's line
 * (render-lanes.ts, docs/adr/0122).
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
  /** Not run: the account's line of renders is full. */
  | { ok: false; reason: "busy" }
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

/**
 * What a render may cost at most: the largest message POST /email accepts,
 * and 300,000 steps. A receipt of 50 line items with nested sections takes
 * about 5,700 steps (render.test.ts), the 1 MB template with a 10,000-row
 * table of test/integration/templates-stall.test.ts 270,000; a refused
 * render of nested sections costs at most about 60 ms of a core (docs/adr/0122).
 */
export const FULL_BUDGET: Budget = { maxOutput: MAX_MESSAGE_BYTES, maxSteps: 300_000 };
/** A worker render that takes longer is stopped: a backstop, the steps and output bounds stop it well before on a machine that is not starved. */
const RENDER_TIMEOUT_MS = 10_000;

/** On the event loop only when the template and the model are this small, and the render stays within SMALL_BUDGET (a few ms at most). */
const SMALL_TEMPLATE_CHARS = 16 * 1024;
const SMALL_MODEL = { nodes: 2_000, chars: 64 * 1024 };
export const SMALL_BUDGET: Budget = { maxOutput: 256 * 1024, maxSteps: 10_000 };

/** Per account: two renders at once (of the two render workers), eight more waiting; past them `busy`. */
// eslint-disable-next-line no-restricted-syntax -- per process, as the render workers they line up for are (render-pool.ts)
const lanes = new RenderLanes({ running: 2, waiting: 8 });

interface BoundedMustache {
  renderParts(parts: TemplateParts, model: unknown, budget: Budget): { subject: string; html?: string; text?: string };
  BudgetExceeded: new (...args: never[]) => Error & { limit: "output" | "steps" | "depth" };
  TemplateSyntaxError: new (...args: never[]) => Error & { part: TemplatePart };
}

const RENDERER_PATH = fileURLToPath(new URL("./bounded-mustache.cjs", import.meta.url));
// eslint-disable-next-line no-restricted-syntax -- a memo of loaded code (bounded-mustache.cjs), the same for every context
let renderer: BoundedMustache | undefined;
const load = () => (renderer ??= createRequire(import.meta.url)(RENDERER_PATH) as BoundedMustache);

/**
 * Renders `parts` with `model` (a JSON value; absent = `{}`) in `account`'s
 * line. Never throws for a template or model, only for a defect.
 */
export async function renderTemplate(parts: TemplateParts, model: unknown, account: string): Promise<RenderOutcome> {
  const turn = await inRenderLine(account, (render) => render(parts, model));
  return turn === "busy" ? { ok: false, reason: "busy" } : turn;
}

/**
 * `work` in `account`'s line of renders, given the render to call (outside
 * a line: it is in this one): what a render needs first (its template, the
 * key's usage) waits in the line too, so a full line costs nothing but its
 * refusal. `busy`: the line is full, `work` was not called.
 */
export async function inRenderLine<T>(account: string, work: (render: (parts: TemplateParts, model: unknown) => Promise<RenderOutcome>) => Promise<T>): Promise<T | "busy"> {
  const turn = await lanes.run(account, () => work(renderNow));
  return turn.ok ? turn.value : "busy";
}

async function renderNow(parts: TemplateParts, model: unknown): Promise<RenderOutcome> {
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

/**
 * The first part Mustache cannot parse, or undefined: a render with an empty
 * model (which only parses and copies text), in `account`'s line. `busy`:
 * the line is full, nothing was parsed.
 */
export async function unparsablePart(parts: TemplateParts, account: string): Promise<TemplatePart | undefined | "busy"> {
  const outcome = await renderTemplate(parts, {}, account);
  if (outcome.ok) return undefined;
  return outcome.reason === "syntax" ? outcome.part : outcome.reason === "busy" ? "busy" : undefined;
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
