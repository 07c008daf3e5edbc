import { describeApiError, iterateEvents } from "@/lib/dashboard/public-api";
import { sameOriginRoute } from "@/lib/dashboard/route-guard";
import { accessForRoute } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import type { EventRecord } from "@/lib/contract/events";
import { csvHeader, csvRow } from "../_lib/csv";
import { parseEventFilters, toApiParams } from "../_lib/filters";

export const dynamic = "force-dynamic";

/**
 * GET /a/<account>/events/export?<the explorer's filters>: the account's whole filtered range as
 * CSV, streamed while it is read from the API. X-Total-Records tells the
 * browser how many rows to expect (for its progress bar).
 */
export const GET = sameOriginRoute(async (request: Request, context: { params: Promise<{ account: string }> }): Promise<Response> => {
  const access = await accessForRoute((await context.params).account, "events");
  if (access instanceof Response) return access;
  const filters = parseEventFilters(new URL(request.url).searchParams);
  const { StartDate, EndDate, Event, MessageID } = toApiParams(filters);
  const params = { StartDate, EndDate: EndDate ?? Math.floor(Date.now() / 1000), Event, MessageID };
  const client = await apiFor(access, "events");

  // The first page before the response: a failing API gives a clear error, not a broken file.
  let total = 0;
  const iterator = iterateEvents(client, params, { signal: request.signal, onTotal: (n) => (total = n) });
  let head: IteratorResult<EventRecord>;
  try {
    head = await iterator.next();
  } catch (err) {
    return Response.json({ error: describeApiError(err) }, { status: 502 });
  }
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        controller.enqueue(encoder.encode(csvHeader()));
        let batch = "";
        let rows = 0;
        for (let item = head; !item.done; item = await iterator.next()) {
          batch += csvRow(item.value);
          // One chunk per API page: the browser's progress moves page by page.
          if (++rows % 100 === 0) {
            controller.enqueue(encoder.encode(batch));
            batch = "";
          }
        }
        if (batch) controller.enqueue(encoder.encode(batch));
        controller.close();
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-");
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="mailroom-events-${stamp}.csv"`,
      "Cache-Control": "no-store",
      "X-Total-Records": String(total),
    },
  });
});
