/**
 * `npm run bench:delivery-cpu`: CPU per recipient copy of the build step
 * alone (no SMTP, no database), in this process: each copy composed whole
 * (buildMessage) against composed from a per-message template
 * (message-template.ts), DKIM-signed (RSA 2048) both ways, for the message
 * of bench/delivery.ts (~1 KB HTML + text) and the same with a 100 KB
 * attachment. BENCH_COPIES copies per case (default 2000).
 */
import { generateKeyPairSync } from "node:crypto";
import { buildMessage } from "../lib/delivery/build-message";
import { createCopyTemplate } from "../lib/delivery/message-template";
import { parseMessageContent } from "../lib/domain/sending/email-request/message-content";

const COPIES = Number(process.env.BENCH_COPIES ?? 2000);
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
const dkim = { domainName: "bench.example", keySelector: "mailroom", privateKey };

const html = (n: number) =>
  `<html><body><h1>Hello</h1><p>${"Lorem ipsum dolor sit amet. ".repeat(20)}</p><p><a href="https://mail.bench.example/t/c/c.${n}.sig">Offer</a></p>` +
  `<img src="https://mail.bench.example/t/o/o.${n}.sig" width="1" height="1" alt="" /></body></html>`;
const unsubscribe = (n: number) => ({ url: `https://mail.bench.example/t/u/u.${n}.sig`, mailto: `unsubscribe+${n}-0123456789abcdef@bounces.bench.example` });

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function run(name: string, attachments: { content: string; filename: string; type: string }[]) {
  const content = parseMessageContent({
    from: { name: "Bench", email: "news@bench.example" },
    to: [{ name: "Reader", email: "reader@example.org" }],
    subject: "Delivery benchmark",
    html: html(0),
    text: "Hello. Lorem ipsum dolor sit amet.",
    tags: ["bench"],
    attachments,
  });
  const base = { messageId: "0f8fad5b-d9cb-469f-a165-70867728950e", fromDomain: "bench.example", date: new Date(), content, dkim };
  const results: string[] = [];
  for (const mode of ["whole", "template", "whole", "template"] as const) {
    const t0 = cpuMs();
    const w0 = performance.now();
    const template = mode === "template" ? await createCopyTemplate({ ...base, hasUnsubscribe: true }) : undefined;
    let bytes = 0;
    for (let n = 1; n <= COPIES; n++) {
      const raw = template ? await template.build({ html: html(n), unsubscribe: unsubscribe(n) }) : await buildMessage({ ...base, html: html(n), unsubscribe: unsubscribe(n) });
      bytes += raw.length;
    }
    results.push(`${mode.padEnd(8)} ${((cpuMs() - t0) / COPIES).toFixed(3)} ms CPU/copy, ${((performance.now() - w0) / COPIES).toFixed(3)} ms wall/copy, ${Math.round(bytes / COPIES)} B/copy`);
  }
  console.log(`${name} (${COPIES} copies, each line a separate run):\n  ${results.join("\n  ")}`);
}

await run("~1 KB HTML + text", []);
await run("~1 KB HTML + text + 100 KB attachment", [{ content: Buffer.alloc(100_000, 7).toString("base64"), filename: "report.pdf", type: "application/pdf" }]);
