import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { countEvents } from "./support/seed";
import { signIn } from "./support/session";
import { loadState } from "./support/state";

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n") {
      row.push(cell.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  return rows;
}

test("CSV export of the filtered range: every matching event, one row each", async ({ page }) => {
  const { url, apiKey, messages } = loadState();
  await signIn(page, "admin");
  await page.goto("/events?type=accepted");
  await expect(page.getByTestId("event-row").first()).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^mailroom-events-.*\.csv$/);
  const rows = parseCsv(readFileSync((await file.path())!, "utf8"));
  const [header, ...data] = rows;
  expect(header!.slice(0, 6)).toEqual(["LoggedAt", "Time (UTC)", "Event", "Recipient", "Subject", "MessageID"]);
  expect(data).toHaveLength(await countEvents(url, apiKey, { Event: "accepted" }));
  expect(new Set(data.map((r) => r[2]))).toEqual(new Set(["accepted"]));
  const ids = new Set(data.map((r) => r[5]));
  for (const id of [messages.engaged, messages.bounced, messages.blocked, ...messages.bulk]) expect(ids.has(id)).toBe(true);
  // No event twice (the export pages by time, not by deep offsets).
  expect(new Set(data.map((r) => r.at(-1))).size).toBe(data.length);
  await expect(page.getByRole("status").filter({ hasText: `Exported ${data.length} rows` })).toBeVisible();
});

test("the export route streams CSV with the total in a header", async ({ page }) => {
  const { messages } = loadState();
  await signIn(page, "support");
  const res = await page.request.get(`/events/export?messageId=${messages.engaged}`);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toContain("text/csv");
  expect(res.headers()["x-total-records"]).toBe("6");
  const rows = parseCsv(await res.text());
  expect(rows).toHaveLength(7);
  expect(rows.slice(1).map((r) => r[2]).sort()).toEqual(["accepted", "accepted", "clicked", "delivered", "delivered", "opened"]);
});
