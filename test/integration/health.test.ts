import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/test-app";

describe("health endpoints", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers /healthz", async () => {
    const res = await app.fetch("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("reports the database and the queue on /readyz", async () => {
    const res = await app.fetch("/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ready", checks: { database: "ok", queue: "ok" } });
  });

  it("uses the bound port in the public URL when PORT=0", () => {
    expect(app.ctx.publicUrl).toBe(`http://localhost:${app.port}`);
  });
});
