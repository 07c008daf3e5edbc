import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_MESSAGES, httpStatusOf, type ErrorCode } from "../../lib/contract/errors";
import { startTestApp, type TestApp } from "../support/test-app";

/** The wire contract (docs/contract.md). */
const CONTRACT = fileURLToPath(new URL("../../docs/contract.md", import.meta.url));

/** Expands "2–11, 18–31" into its codes. */
function codesIn(text: string): number[] {
  const codes: number[] = [];
  for (const m of text.matchAll(/(\d+)(?:\s*[–-]\s*(\d+))?/g)) {
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    for (let code = from; code <= to; code++) codes.push(code);
  }
  return codes;
}

/** Rows of the "Codes | HTTP" table of docs/contract.md §4.3 as [code, HTTP status] pairs, plus every "→ N" of its POST /email steps (§5). */
function contractCodes(markdown: string): { pairs: [number, number][]; stepCodes: number[] } {
  const section = markdown.split("## 4. Error envelope and HTTP status")[1]!.split("\n## ")[0]!;
  const pairs: [number, number][] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    if (cells.length !== 2 || !/\d{3}/.test(cells[1]!)) continue;
    const status = Number(/\d{3}/.exec(cells[1]!)![0]);
    let codes = codesIn(cells[0]!.replace(/\([^)]*\)/g, ""));
    // "a known path with a method it does not serve | 405 …, body code 404", "anything unexpected | 500, body {…"Code":500…}".
    if (codes.length === 0) {
      const body = /body code (\d+)|"Code":(\d+)/.exec(cells[1]!);
      codes = body ? [Number(body[1] ?? body[2])] : [];
    }
    for (const code of codes) pairs.push([code, status]);
  }
  const steps = markdown.split("## 5. POST /email")[1]!.split("\n## ")[0]!;
  const stepCodes = [...steps.matchAll(/→ (\d+)/g)].map((m) => Number(m[1]));
  return { pairs, stepCodes };
}

interface Doc {
  info: { description: string };
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }>; security?: unknown[] }>>;
  components: { responses: Record<string, { description: string; content: Record<string, { schema: { $ref: string } }> }> };
}

describe("the OpenAPI document documents every error code of docs/contract.md", () => {
  let app: TestApp;
  let doc: Doc;
  const { pairs, stepCodes } = contractCodes(readFileSync(CONTRACT, "utf8"));

  beforeAll(async () => {
    app = await startTestApp();
    doc = (await (await app.fetch("/api/v1/openapi.json")).json()) as Doc;
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Every (operation, status, resolved response) of the document. */
  const responses = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        Object.entries(op.responses).map(([status, r]) => ({
          operation: `${method.toUpperCase()} ${path}`,
          status: Number(status),
          response: r.$ref ? doc.components.responses[r.$ref.replace("#/components/responses/", "")]! : (r as Doc["components"]["responses"][string]),
        })),
      ),
    );

  it("reads the contract's table (spot checks, so that a change of its form fails here rather than passing empty)", () => {
    const codes = new Set(pairs.map(([code]) => code));
    for (const code of [1, 2, 11, 12, 13, 14, 17, 18, 31, 32, 404, 422, 429, 500]) expect(codes, String(code)).toContain(code);
    expect(pairs).toContainEqual([404, 405]);
    expect(stepCodes.length).toBeGreaterThan(20);
  });

  it("answers each code under the status docs/contract.md gives it, with the error envelope and the spec's message", () => {
    for (const [code, status] of pairs) {
      const message = ERROR_MESSAGES[code as ErrorCode];
      expect(message, `code ${code} is in the spec's table`).toBeDefined();
      expect(doc.info.description).toContain(`| ${code} | ${message} |`);
      if (status === 405) {
        // Not an operation's response: any other method of a documented path.
        expect(doc.info.description).toMatch(/405 with `Allow` and body code 404/);
        continue;
      }
      expect(httpStatusOf(code as ErrorCode), `HTTP status of code ${code}`).toBe(status);
      const documented = responses().filter((r) => r.status === status && r.response.description.includes(`| ${code} | ${message} |`));
      expect(documented.length, `an operation documents code ${code} under ${status}`).toBeGreaterThan(0);
      for (const { response } of documented) {
        expect(response.content["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
      }
    }
  });

  it("documents every code of the POST /email steps on POST /email", () => {
    const send = responses().filter((r) => r.operation === "POST /email");
    for (const code of stepCodes) {
      const row = `| ${code} | ${ERROR_MESSAGES[code as ErrorCode]} |`;
      expect(send.some((r) => r.status === httpStatusOf(code as ErrorCode) && r.response.description.includes(row)), `POST /email, code ${code}`).toBe(true);
    }
  });

  it("routes every documented operation (no key: 401, or 200 for the public document) and refuses other methods with 405", async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      const url = "/api/v1" + path.replace("{id}", "1");
      for (const [method, op] of Object.entries(ops)) {
        const res = await app.fetch(url, { method: method.toUpperCase() });
        expect(res.status, `${method} ${path}`).toBe(op.security?.length === 0 ? 200 : 401);
        await res.arrayBuffer();
      }
      // A method the path does not serve (PATCH /email/{MessageID} exists).
      const other = ["patch", "put", "delete"].find((m) => !(m in ops))!;
      const res = await app.fetch(url, { method: other.toUpperCase() });
      expect(res.status, `${other} ${path}`).toBe(405);
      expect(res.headers.get("allow")!.split(", ").filter((m) => m !== "HEAD")).toEqual(Object.keys(ops).map((m) => m.toUpperCase()));
      await res.arrayBuffer();
    }
  });
});
