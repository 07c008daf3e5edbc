import http from "node:http";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/delivery-helpers";
import { bearer, createTestAccount } from "../support/fixtures";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * The stall budget (docs/adr/0310) with templates (docs/adr/0121): a 1 MB
 * template with a 10,000-item section is saved (Mustache parses it), test
 * rendered, and sent and delivered, and a small template with nested
 * sections that multiply the work is refused, while the event loop of the
 * process serving the API (real HTTP, real PostgreSQL, inline delivery and
 * sandbox MX) never waits 200 ms.
 */

const BUDGET_MS = 200;

describe("stall budget: large template renders stay off the event loop", () => {
  let app: TestApp;
  let apiKey: string;
  const table: { case: string; status: number; "max delay (ms)": number }[] = [];

  beforeAll(async () => {
    app = await startTestApp({ MAILROOM_DELIVERY_RETRY_SCHEDULE: "500ms", MAILROOM_DELIVERY_MAX_AGE: "20s" });
    ({ apiKey } = await createTestAccount(app.ctx));
  });
  afterAll(async () => {
    console.log("Worst event loop delay per case (budget: %d ms)", BUDGET_MS);
    console.table(table);
    await app?.stop();
  });

  /** A request from a prepared Buffer (node:http: fetch() copies a large body in long steps of its own, in this same process). */
  function request(method: string, path: string, body: Buffer): Promise<{ status: number; json: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${app.url}/api/v1${path}`, { method, headers: { ...bearer(apiKey), "Content-Length": String(body.length) } }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> }));
        r.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  async function measured(name: string, work: () => Promise<{ status: number; json: Record<string, unknown> }>) {
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    let out: { status: number; json: Record<string, unknown> };
    try {
      out = await work();
    } finally {
      h.disable();
    }
    const delay = Math.round(h.max / 1e6);
    table.push({ case: name, status: out.status, "max delay (ms)": delay });
    return { ...out, delay };
  }

  it("a 1 MB template with a 10,000-item section: saved, rendered, sent and delivered within the budget", async () => {
    const filler = "<p>Thank you for your order. These are the terms of the sale.</p>\n".repeat(15_300);
    const html = `<h1>Hello {{name}}</h1>${filler}<table>{{#items}}<tr><td>{{sku}}</td><td>{{title}}</td><td>{{qty}}</td></tr>{{/items}}</table>`;
    expect(html.length).toBeGreaterThan(1_000_000);
    const template = Buffer.from(JSON.stringify({ Name: "Large", Subject: "Order {{order}}", HTMLContent: html, PlainContent: "{{#items}}{{sku}} {{title}} × {{qty}}\n{{/items}}" }));
    const created = await measured("POST /templates (1 MB)", () => request("POST", "/templates", template));
    expect(created.status).toBe(200);
    const id = created.json.TemplateID as number;

    const items = Array.from({ length: 10_000 }, (_, i) => ({ sku: `SKU-${i}`, title: `<Item ${i}>`, qty: (i % 5) + 1 }));
    const model = { name: "Ann", order: 42, items };
    const rendered = await measured("POST /templates/{id}/render (10,000 items)", () => request("POST", `/templates/${id}/render`, Buffer.from(JSON.stringify({ TemplateModel: model }))));
    expect(rendered.status).toBe(200);
    expect(rendered.json.Subject).toBe("Order 42");
    expect(rendered.json.HTMLContent as string).toContain("<tr><td>SKU-9999</td><td>&lt;Item 9999&gt;</td><td>5</td></tr></table>");

    const sendBody = Buffer.from(
      JSON.stringify({ From: { name: "Shop", email: "shop@example.com" }, To: [{ name: "Bob", email: "bob@example.org" }], TemplateID: id, TemplateModel: model }),
    );
    const sent = await measured("POST /email with the template, until delivered", async () => {
      const res = await request("POST", "/email", sendBody);
      if (res.status === 200) {
        await waitFor(
          "the final event",
          async () => {
            const { rows } = await app.ctx.database.pool.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM message_recipients WHERE message_id = $1 AND status IN ('queued', 'deferred')",
              [res.json.MessageID],
            );
            return rows[0]!.n === 0 ? true : undefined;
          },
          60_000,
        );
      }
      return res;
    });
    expect(sent.status).toBe(200);
    const { rows } = await app.ctx.database.pool.query<{ template_version: number; status: string }>(
      "SELECT m.template_version, r.status FROM messages m JOIN message_recipients r ON r.message_id = m.id WHERE m.id = $1",
      [sent.json.MessageID],
    );
    expect(rows).toEqual([{ template_version: 1, status: "delivered" }]);

    for (const m of [created, rendered, sent]) expect(m.delay).toBeLessThan(BUDGET_MS);
  }, 300_000);

  it("a small template whose nested sections multiply the work is refused within the budget", async () => {
    const nested = "{{#a}}{{#a}}{{#a}}{{#a}}{{#a}}<b>{{x}}</b>{{/a}}{{/a}}{{/a}}{{/a}}{{/a}}";
    const created = await request("POST", "/templates", Buffer.from(JSON.stringify({ Name: "Nested", Subject: "s", HTMLContent: nested })));
    expect(created.status).toBe(200);
    const model = { a: Array.from({ length: 100 }, () => 1), x: "y" };
    const r = await measured("render of 100^5 nested sections", () => request("POST", `/templates/${created.json.TemplateID}/render`, Buffer.from(JSON.stringify({ TemplateModel: model }))));
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ Errors: [{ Code: 422, Message: "Invalid request parameters", Field: "TemplateModel" }] });
    expect(r.delay).toBeLessThan(BUDGET_MS);
  }, 120_000);
});
