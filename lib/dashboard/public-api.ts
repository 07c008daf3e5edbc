// What pages and route handlers use of the public API's client. The dashboard
// reaches the API only through lib/dashboard (docs/ARCHITECTURE.md: app/ and
// components/ never import lib/api-client), so the few pieces a page needs
// directly (the error class and its wording, paging over events, the chart
// counts) are handed on from here.
export { ApiRequestError, type ApiClient, type EventsParams } from "../api-client/client";
export { describeApiError } from "../api-client/describe-error";
export { iterateEvents } from "../api-client/iterate-events";
export { fetchStats, fetchTotals, type StatsSource } from "../api-client/stats";
export { readBytes } from "../read-bytes";
