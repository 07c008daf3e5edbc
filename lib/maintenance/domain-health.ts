import { checkAllDomains, domainDepsFrom } from "../domain/accounts/domain-operations";
import type { MaintenanceJob } from "./maintenance-job";

/**
 * Every sender domain's health checks once a day (docs/adr/0134): a record
 * removed or changed since shows in the API and the dashboard, a rotation
 * whose new record is published switches, and a rotated-out DKIM selector
 * past MAILROOM_DKIM_OLD_SELECTOR_DAYS is dropped from the records.
 */
export const domainHealthCheck: MaintenanceJob = {
  name: "maintenance-domain-health",
  cron: "41 4 * * *",
  run: async (ctx, now) =>
    checkAllDomains(domainDepsFrom({ database: ctx.database, lookup: ctx.domainLookup, publicUrl: ctx.publicUrl, delivery: ctx.config.delivery }), now),
};
