import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSandboxMessages, readSandboxMessage, reportSandboxMessageAsSpam } from "../../lib/inbound/sandbox-inbox";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { startTestApp, type TestApp } from "../support/test-app";

describe("sandbox inbox (server-side module for the dashboard)", () => {
  let app: TestApp;
  let apiKey: string;
  let accountId: string;
  const ids: string[] = [];
  const pdf = Buffer.from("%PDF-1.4 fake pdf bytes \u0000\u0001\u0002");

  beforeAll(async () => {
    app = await startTestApp();
    ({ apiKey, accountId } = await createTestAccount(app.ctx));
    for (const [i, to] of ["first@example.org", "second@example.org", "third@example.net"].entries()) {
      const id = await sendViaApi(app, apiKey, {
        From: { name: "Shop", email: "shop@example.com" },
        To: [{ name: `Reader ${i}`, email: to }],
        Subject: `Sandbox №${i}`,
        ContentType: "HTML",
        HTMLContent: `<p>Message ${i}</p>`,
        PlainContent: `Message ${i}`,
        Attachments: [{ Content: pdf.toString("base64"), Filename: "doc.pdf", Type: "application/pdf" }],
      });
      await waitForEvent(app.ctx, id, "delivered", to);
      ids.push(id);
    }
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("lists captures newest first, with search and paging", async () => {
    const all = await listSandboxMessages(app.ctx.database, { accountId });
    expect(all.total).toBe(3);
    expect(all.items.map((i) => i.messageId)).toEqual([...ids].reverse());
    expect(all.items[0]).toMatchObject({ subject: "Sandbox №2", rcptTo: ["third@example.net"] });
    const page = await listSandboxMessages(app.ctx.database, { accountId, limit: 1, offset: 1 });
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.messageId)).toEqual([ids[1]]);
    const found = await listSandboxMessages(app.ctx.database, { search: "example.net" });
    expect(found.items.map((i) => i.messageId)).toEqual([ids[2]]);
    expect((await listSandboxMessages(app.ctx.database, { search: ids[0] })).total).toBe(1);
    expect((await listSandboxMessages(app.ctx.database, { search: "%_" })).total).toBe(0);
  });

  it("reads one capture: headers, bodies, attachments and raw source", async () => {
    const [item] = (await listSandboxMessages(app.ctx.database, { search: "first@" })).items;
    const m = (await readSandboxMessage(app.ctx.database, item!.id))!;
    expect(m.subject).toBe("Sandbox №0");
    expect(m.from).toBe('"Shop" <shop@example.com>');
    expect(m.to).toContain("first@example.org");
    expect(m.html).toContain("<p>Message 0</p>");
    expect(m.text?.trim()).toBe("Message 0");
    expect(m.attachments).toHaveLength(1);
    expect(Buffer.from(m.attachments[0]!.contentBase64, "base64").equals(pdf)).toBe(true);
    expect(m.headers.find((h) => h.name === "Message-ID")?.value).toBe(`<${ids[0]}@example.com>`);
    expect(m.headers.some((h) => h.name === "DKIM-Signature")).toBe(true);
    expect(m.raw).toMatch(/^Return-Path: <bounces\+/);
    expect(m.unsubscribeUrl).toMatch(/\/t\/u\//);
    expect(await readSandboxMessage(app.ctx.database, 999_999)).toBeUndefined();
  });

  it("'Report as spam' sends an ARF complaint through inbound SMTP → complained", async () => {
    const [item] = (await listSandboxMessages(app.ctx.database, { search: "second@" })).items;
    expect(await reportSandboxMessageAsSpam(app.ctx, item!.id)).toEqual({ ok: true });
    const e = await waitForEvent(app.ctx, ids[1]!, "complained", "second@example.org");
    expect(e.reason).toContain("Mailroom-Sandbox-Inbox");
    expect(await reportSandboxMessageAsSpam(app.ctx, 999_999)).toMatchObject({ ok: false });
  });

  it("reads an HTML-only capture of 100,000 nested <div>s: its text from the HTML (mailparser's own conversion failed on it)", async () => {
    const id = await sendViaApi(app, apiKey, {
      From: { name: "Shop", email: "shop@example.com" },
      To: [{ name: "Deep", email: "deep@example.org" }],
      Subject: "Deep",
      ContentType: "HTML",
      HTMLContent: `<p>Top</p>${"<div>".repeat(100_000)}Deep &amp; down`,
    });
    await waitForEvent(app.ctx, id, "delivered", "deep@example.org");
    const [item] = (await listSandboxMessages(app.ctx.database, { search: "deep@" })).items;
    const m = (await readSandboxMessage(app.ctx.database, item!.id))!;
    expect(m.html).toContain("<div><div>");
    expect(m.text).toBe("Top\n\nDeep & down");
  });

  it("the unsubscribe button works with the capture's List-Unsubscribe URL", async () => {
    const [item] = (await listSandboxMessages(app.ctx.database, { search: "third@" })).items;
    const m = (await readSandboxMessage(app.ctx.database, item!.id))!;
    const res = await fetch(m.unsubscribeUrl!, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(200);
    await waitForEvent(app.ctx, ids[2]!, "unsubscribed", "third@example.net");
  });
});
