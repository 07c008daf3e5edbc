import { readFileSync, statSync } from "node:fs";
import type { Logger } from "../../logger";
import { DEFAULT_SHAPING_RULES } from "./shaping-defaults";
import { mergeRules, shapingRulesSchema, type ShapingRules } from "./shaping-rules";

/**
 * MAILROOM_SHAPING_FILE: the operator's shaping rules (JSON, an object of
 * rules by destination key or provider name) over the defaults. Looked at
 * every few seconds and re-read when its modification time or size changes,
 * so a change applies without a restart; a file that is missing, too large,
 * not JSON or not rules keeps the last good rules and logs a warning.
 */

/** A shaping file is a few rules; past this it is refused unread. */
export const MAX_SHAPING_FILE_BYTES = 256 * 1024;

export interface ShapingSource {
  rules(): ShapingRules;
  stop(): void;
}

/** The rules of a file's text, or why it is refused. */
export function parseShapingText(text: string): { rules: ShapingRules } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON (${(err as Error).message.slice(0, 200)})` };
  }
  const parsed = shapingRulesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { error: `${issue.path.join(".") || "the file"}: ${issue.message}` };
  }
  return { rules: parsed.data };
}

export function watchShapingFile(file: string | undefined, options: { log?: Logger; intervalMs?: number } = {}): ShapingSource {
  let current: ShapingRules = DEFAULT_SHAPING_RULES;
  if (!file) return { rules: () => current, stop: () => {} };
  let seen = "";
  const load = () => {
    let signature: string;
    try {
      const st = statSync(file);
      signature = `${st.mtimeMs}:${st.size}`;
      if (signature === seen) return;
      seen = signature;
      if (st.size > MAX_SHAPING_FILE_BYTES) {
        options.log?.warn({ file, bytes: st.size }, `shaping file: larger than ${MAX_SHAPING_FILE_BYTES} bytes; keeping the last good rules`);
        return;
      }
    } catch (err) {
      if (seen !== "missing") options.log?.warn({ file, err }, "shaping file: cannot be read; keeping the last good rules");
      seen = "missing";
      return;
    }
    const parsed = parseShapingText(readFileSync(file, "utf8"));
    if ("error" in parsed) {
      options.log?.warn({ file }, `shaping file: ${parsed.error}; keeping the last good rules`);
      return;
    }
    current = mergeRules(DEFAULT_SHAPING_RULES, parsed.rules);
    options.log?.info({ file, keys: Object.keys(parsed.rules).length }, "shaping file: rules loaded");
  };
  load();
  const timer = setInterval(load, options.intervalMs ?? 3000);
  timer.unref();
  return { rules: () => current, stop: () => clearInterval(timer) };
}
