import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDelivery, type DeliveryRuntime } from "../../lib/delivery/start";
import type { MxResolver } from "../../lib/delivery/transports";
import { createTestAccount } from "../support/fixtures";
import { sendViaApi, waitForEvent } from "../support/delivery-helpers";
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
  let delivery: DeliveryRuntime;
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
    app = await startTestApp({ MAILROOM_WORKERS: "off", MAILROOM_DELIVERY: "mx" });
    apiKey = (await createTestAccount(app.ctx)).apiKey;
    delivery = await startDelivery(app.ctx, { workers: true, inbound: false, mx: { resolver, port: mx.port } });
  });
  afterAll(async () => {
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
