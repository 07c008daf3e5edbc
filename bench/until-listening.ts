import net from "node:net";

/** Resolves once something accepts connections on 127.0.0.1:`port`; throws after `timeoutMs`, naming `what`. */
export async function untilListening(port: number, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, "127.0.0.1", () => (c.end(), resolve(true)));
      c.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
