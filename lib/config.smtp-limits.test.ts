import { describe, expect, it } from "vitest";
import { buildConfig, ConfigError } from "./config";

describe("delivery SMTP limits (docs/configuration.md)", () => {
  it("defaults to RFC 5321's limits towards remote MXs and shorter ones towards the relay", () => {
    const { smtp } = buildConfig({}).delivery;
    expect(smtp.mx).toEqual({
      timeouts: { connectMs: 300_000, greetingMs: 300_000, mailMs: 300_000, rcptMs: 300_000, dataMs: 120_000, dataBlockMs: 180_000, dataEndMs: 600_000 },
      stallAfterMs: 30_000,
    });
    expect(smtp.relay).toEqual({
      timeouts: { connectMs: 10_000, greetingMs: 30_000, mailMs: 30_000, rcptMs: 60_000, dataMs: 30_000, dataBlockMs: 60_000, dataEndMs: 120_000 },
      stallAfterMs: 5_000,
    });
    expect(smtp.slotWaitMs).toBe(60_000);
  });

  it("takes each setting on its own", () => {
    const { smtp } = buildConfig({ MAILROOM_RELAY_RCPT_TIMEOUT: "8s", MAILROOM_MX_DATA_END_TIMEOUT: "15m", MAILROOM_DELIVERY_SLOT_WAIT: "250ms" }).delivery;
    expect(smtp.relay.timeouts.rcptMs).toBe(8_000);
    expect(smtp.relay.timeouts.mailMs).toBe(30_000);
    expect(smtp.mx.timeouts.dataEndMs).toBe(900_000);
    expect(smtp.slotWaitMs).toBe(250);
  });

  it("refuses a limit of zero, beyond a day, or not a duration, naming the variable", () => {
    expect(() => buildConfig({ MAILROOM_MX_RCPT_TIMEOUT: "0" })).toThrow(new ConfigError('MAILROOM_MX_RCPT_TIMEOUT: "0" must be between 1ms and 24h'));
    expect(() => buildConfig({ MAILROOM_RELAY_STALL_AFTER: "25h" })).toThrow(/^MAILROOM_RELAY_STALL_AFTER: "25h" must be between 1ms and 24h$/);
    expect(() => buildConfig({ MAILROOM_DELIVERY_SLOT_WAIT: "soon" })).toThrow(/^MAILROOM_DELIVERY_SLOT_WAIT: "soon" is not a duration/);
    expect(() => buildConfig({ MAILROOM_MX_CONNECT_TIMEOUT: "-5s" })).toThrow(/^MAILROOM_MX_CONNECT_TIMEOUT: "-5s" is not a duration/);
  });
});
