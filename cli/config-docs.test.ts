import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildConfig } from "../lib/config";

/** .env.example and docs/configuration.md list every variable of lib/config.ts, with its real default. */
const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const schemaBlock = /const envSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(read("lib/config.ts"))![1]!;
const variables = [...schemaBlock.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);

function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

describe("configuration docs", () => {
  it("finds the variables of lib/config.ts", () => {
    expect(variables).toContain("DATABASE_URL");
    expect(variables.length).toBeGreaterThan(30);
  });

  it(".env.example lists every variable, and its values are the defaults", () => {
    const example = parseEnvFile(read(".env.example"));
    expect(variables.filter((v) => !(v in example)), "a variable of lib/config.ts is missing in .env.example").toEqual([]);
    expect(Object.keys(example).filter((v) => !variables.includes(v))).toEqual([]);
    // Same settings; only the record of which variables were given differs.
    expect({ ...buildConfig(example), sourceEnv: {} }).toEqual(buildConfig({}));
  });

  it("docs/configuration.md describes every variable", () => {
    const doc = read("docs/configuration.md");
    expect(variables.filter((v) => !doc.includes(`| \`${v}\``)), "a variable of lib/config.ts is missing in docs/configuration.md").toEqual([]);
  });
});
