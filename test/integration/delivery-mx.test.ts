import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkers, type RunningWorkers } from "../../lib/workers/start-workers";
import type { MxResolver } from "../../lib/delivery/transports";
import { createTestAccount } from "../support/fixtures";
import { expectNoRecipientLeftQueued, sendViaApi, waitForEvent } from "../support/delivery-helpers";
import { startSmtpSink, type SmtpSink } from "../support/smtp-sink";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * Direct MX delivery. Internet DNS is outside, so the resolver is the test's:
 * it answers MX and A queries with loopback servers (a real smtp-server
 * offering STARTTLS plays the remote MX). Everything else is the real path.
 */
describe("mx delivery (MX lookup, A fallback, STARTTLS)", () => {
  let app: TestApp;
  let mx: SmtpSink;
  let delivery: RunningWorkers;
  let apiKey: string;
  const lookups: string[] = [];

  beforeAll(async () => {
    mx = await startSmtpSink({ starttls: true, rcptReply: (a) => (a.startsWith("nobody@") ? [550, "5.1.1 No such user here"] : undefined) });
    // The remote MX and the A-only domain's host listen on the same loopback port.
    const resolver: MxResolver = {
      async resolveMx(domain) {
        lookups.push(`MX ${domain}`);
        if (domain === "mx.example") return [
          { exchange: "dead.mx.example", priority: 5 },
          { exchange: "mail.mx.example", priority: 10 },
        ];
        if (domain === "nxdomain.example") throw Object.assign(new Error("queryMx ENOTFOUND"), { code: "ENOTFOUND" });
        throw Object.assign(new Error("queryMx ENODATA"), { code: "ENODATA" });
      },
      async resolve4(host) {
        lookups.push(`A ${host}`);
        if (host === "mail.mx.example" || host === "a-only.example") return ["127.0.0.1"];
        if (host === "dead.mx.example") return ["127.0.0.2"]; // nothing listens there
        throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
      },
    };
    // The test's MX servers listen on loopback: allowed here, refused by default (see below).
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY: "mx", MAILROOM_ALLOW_PRIVATE_MX: "true" });
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    delivery = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false, mx: { resolver, port: mx.port } });
  });
  afterAll(async () => {
    // Every recipient this file accepted reached a final event (none left `queued`, none stranded).
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await delivery?.stop();
    await app?.stop();
    await mx?.stop();
  });

  const send = (to: string) =>
    sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: [to], Subject: "mx", ContentType: "Text", PlainContent: "hello" });

  it("looks up the MX, skips an unreachable one, and delivers over STARTTLS", async () => {
    const id = await send("ann@mx.example");
    const e = await waitForEvent(app.ctx, id, "delivered", "ann@mx.example");
    expect(e.reason).toMatch(/^250 /);
    expect(e.details).toMatchObject({ mxHost: "mail.mx.example" });
    const mail = mx.received.find((m) => m.rcptTo.includes("ann@mx.example"))!;
    expect(mail.secure).toBe(true);
    expect(lookups).toContain("MX mx.example");
  });

  it("falls back to the A record of a domain without MX", async () => {
    const id = await send("bob@a-only.example");
    const e = await waitForEvent(app.ctx, id, "delivered", "bob@a-only.example");
    expect(e.details).toMatchObject({ mxHost: "a-only.example" });
  });

  it("fails a domain that does not exist and a 5.1.1 from the MX", async () => {
    const id = await send("x@nxdomain.example");
    const e = await waitForEvent(app.ctx, id, "failed", "x@nxdomain.example");
    expect(e.details).toMatchObject({ enhancedCode: "5.1.2" });
    const id2 = await send("nobody@mx.example");
    const e2 = await waitForEvent(app.ctx, id2, "failed", "nobody@mx.example");
    expect(e2.reason).toBe("550 5.1.1 No such user here");
  });
});

describe("mx delivery refuses private and reserved addresses by default", () => {
  let app: TestApp;
  let delivery: RunningWorkers;
  let apiKey: string;
  let listener: net.Server;
  let connections = 0;

  beforeAll(async () => {
    // A plain TCP listener plays the MX: it counts connections (there must be none).
    listener = net.createServer((socket) => {
      connections++;
      socket.end("220 private.mx ESMTP\r\n");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const resolver: MxResolver = {
      async resolveMx(domain) {
        if (domain === "internal.example") return [{ exchange: "mail.internal.example", priority: 10 }];
        throw Object.assign(new Error("queryMx ENODATA"), { code: "ENODATA" });
      },
      async resolve4(host) {
        if (host === "mail.internal.example") return ["127.0.0.1"];
        if (host === "metadata.example") return ["169.254.169.254"];
        throw Object.assign(new Error("queryA ENOTFOUND"), { code: "ENOTFOUND" });
      },
    };
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY: "mx" });
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    delivery = await startWorkers(app.ctx, { workers: true, inbound: false, notifications: false, maintenance: false, mx: { resolver, port } });
  });
  afterAll(async () => {
    // Every recipient this file accepted reached a final event (none left `queued`, none stranded).
    if (app) await expectNoRecipientLeftQueued(app.ctx);
    await delivery?.stop();
    await app?.stop();
    await new Promise((resolve) => listener?.close(resolve));
  });

  const send = (to: string) =>
    sendViaApi(app, apiKey, { From: { email: "shop@example.com" }, To: [to], Subject: "mx", ContentType: "Text", PlainContent: "hello" });

  it("fails a recipient whose MX is on loopback, says why, and connects nowhere", async () => {
    const id = await send("ann@internal.example");
    const e = await waitForEvent(app.ctx, id, "failed", "ann@internal.example");
    expect(e.reason).toBe(
      "MX host mail.internal.example resolves only to private/reserved addresses (127.0.0.1); set MAILROOM_ALLOW_PRIVATE_MX=true to allow",
    );
    expect(e.details).toMatchObject({ enhancedCode: "5.4.4" });
    const id2 = await send("bob@metadata.example"); // no MX: the A fallback is checked the same way
    const e2 = await waitForEvent(app.ctx, id2, "failed", "bob@metadata.example");
    expect(e2.reason).toMatch(/^MX host metadata\.example resolves only to private\/reserved addresses \(169\.254\.169\.254\)/);
    expect(connections).toBe(0);
  });
});
