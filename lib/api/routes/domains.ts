import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context";
import {
  addDomainRequestSchema,
  deleteDomainResponseSchema,
  domainParamSchema,
  domainQuerySchema,
  domainSchema,
  listDomainsResponseSchema,
  updateDomainRequestSchema,
  type DomainJson,
} from "../../contract/domains";
import {
  addDomain,
  checkDomain,
  deleteDomain,
  domainDepsFrom,
  getDomain,
  listDomains,
  rotateDkim,
  setTrackingDomain,
  type DomainDeps,
  type DomainView,
} from "../../domain/accounts/domain-operations";
import { DomainError } from "../../domain/shared/domain-error";
import type { ApiEnv } from "../../http/env";
import { apiError } from "../../http/errors";
import { readValidJson } from "../../http/validation";
import { COMMON_ERRORS, errorResponses } from "../openapi";

/**
 * The domains API (docs/contract.md §17.5, docs/adr/0134): sender domains,
 * the records to publish, their health checks, DKIM rotation and the
 * tracking domain, through the same use cases as the CLI and the dashboard.
 * Changes need a full key; reads a read key (docs/contract.md §17.2).
 */

const domainParams = z.object({ domain: domainParamSchema.describe("The domain name") });
const domainResponse = (description: string) => ({ description, content: { "application/json": { schema: domainSchema } } });
const bodyRef = (name: string) => ({ required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } });

const listDomainsRoute = createRoute({
  method: "get",
  path: "/domains",
  operationId: "listDomains",
  summary: "List the account's sender domains with their status and last checks",
  responses: {
    200: { description: "The domains, by name", content: { "application/json": { schema: listDomainsResponseSchema } } },
    ...errorResponses(...COMMON_ERRORS),
  },
});

const addDomainRoute = createRoute({
  method: "post",
  path: "/domains",
  operationId: "addDomain",
  summary: "Add a sender domain; the answer lists every record to publish",
  // A reference, not the schema: the handler reads the body with the byte cap and checks it (docs/adr/0105).
  request: { body: bodyRef("AddDomainRequest") },
  responses: { 200: domainResponse("The domain, pending until its verification record is found"), ...errorResponses(422, ...COMMON_ERRORS) },
});

const getDomainRoute = createRoute({
  method: "get",
  path: "/domains/{domain}",
  operationId: "getDomain",
  summary: "A sender domain; `?check=true` runs its health checks first",
  request: { params: domainParams, query: domainQuerySchema },
  responses: { 200: domainResponse("The domain"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const updateDomainRoute = createRoute({
  method: "patch",
  path: "/domains/{domain}",
  operationId: "updateDomain",
  summary: "Set or remove the domain's tracking domain (open and click links), used once its CNAME checks out",
  request: { params: domainParams, body: bodyRef("UpdateDomainRequest") },
  responses: { 200: domainResponse("The domain"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const verifyDomainRoute = createRoute({
  method: "post",
  path: "/domains/{domain}/verify",
  operationId: "verifyDomain",
  summary: "Check the domain's DNS now: verification, DKIM, SPF, DMARC, alignment, the Return-Path MX, PTR, the tracking CNAME",
  request: { params: domainParams },
  responses: { 200: domainResponse("The domain after the checks (Status verified once its TXT record is found)"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const rotateDkimRoute = createRoute({
  method: "post",
  path: "/domains/{domain}/dkim/rotate",
  operationId: "rotateDomainDkim",
  summary: "Start a DKIM key rotation: a new selector to publish beside the old, signing once a check finds it",
  request: { params: domainParams },
  responses: { 200: domainResponse("The domain with DkimNextSelector and its record"), ...errorResponses(404, 422, ...COMMON_ERRORS) },
});

const deleteDomainRoute = createRoute({
  method: "delete",
  path: "/domains/{domain}",
  operationId: "deleteDomain",
  summary: "Remove a sender domain: mail From it is refused from then on",
  request: { params: domainParams },
  responses: {
    200: { description: "Removed", content: { "application/json": { schema: deleteDomainResponseSchema } } },
    ...errorResponses(404, 422, ...COMMON_ERRORS),
  },
});

const seconds = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);

export function domainJsonOf({ row, records, checks }: DomainView): DomainJson {
  return {
    Domain: row.name,
    Status: row.status,
    CreatedAt: seconds(row.createdAt)!,
    VerifiedAt: seconds(row.verifiedAt),
    Records: records.map((r) => ({ Purpose: r.purpose, Type: r.type, Name: r.name, Value: r.value })),
    Checks: checks.map((c) => ({ Check: c.check, Status: c.status, Detail: c.detail, Fix: c.fix && { Type: c.fix.type, Name: c.fix.name, Value: c.fix.value } })),
    CheckedAt: seconds(row.checkedAt),
    DkimSelector: row.dkimSelector,
    DkimNextSelector: row.dkimNextSelector,
    DkimPreviousSelector: row.dkimPreviousSelector,
    DkimPreviousUntil: seconds(row.dkimPreviousUntil),
    TrackingDomain: row.trackingDomain,
    TrackingDomainVerified: row.trackingVerifiedAt !== null,
  };
}

/** The use cases' dependencies from the process context. */
export const domainDepsOf = (ctx: AppContext): DomainDeps =>
  domainDepsFrom({ database: ctx.database, lookup: ctx.domainLookup, publicUrl: ctx.publicUrl, delivery: ctx.config.delivery });

export function addDomainRoutes(app: OpenAPIHono<ApiEnv>, ctx: AppContext): void {
  app.openAPIRegistry.register("AddDomainRequest", addDomainRequestSchema.clone());
  app.openAPIRegistry.register("UpdateDomainRequest", updateDomainRequestSchema.clone());
  const deps = () => domainDepsOf(ctx);
  const account = (c: { get(key: "auth"): { accountId: string } }) => c.get("auth").accountId;

  app.openapi(listDomainsRoute, async (c) => {
    const views = await listDomains(deps(), account(c));
    return c.json({ Domains: views.map(domainJsonOf) }, 200);
  });

  app.openapi(addDomainRoute, async (c) => {
    const input = await readValidJson(c, addDomainRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    // The account has it already: the same 422 as any unusable Domain (no 409: that code is the Idempotency-Key's).
    if (await getDomain(deps(), account(c), input.data.Domain)) return apiError(c, 422, "Domain");
    try {
      return c.json(domainJsonOf(await addDomain(deps(), account(c), input.data.Domain)), 200);
    } catch (err) {
      if (err instanceof DomainError) return apiError(c, 422, "Domain");
      throw err;
    }
  });

  app.openapi(getDomainRoute, async (c) => {
    const { domain } = c.req.valid("param");
    const check = c.req.valid("query").check === "true";
    const view = check ? await checkDomain(deps(), account(c), domain) : await getDomain(deps(), account(c), domain);
    return view ? c.json(domainJsonOf(view), 200) : apiError(c, 404);
  });

  app.openapi(updateDomainRoute, async (c) => {
    const input = await readValidJson(c, updateDomainRequestSchema, ctx.config.api.maxBodyBytes);
    if (!input.ok) return input.response;
    try {
      const view = await setTrackingDomain(deps(), account(c), c.req.valid("param").domain, input.data.TrackingDomain);
      return view ? c.json(domainJsonOf(view), 200) : apiError(c, 404);
    } catch (err) {
      if (err instanceof DomainError) return apiError(c, 422, "TrackingDomain");
      throw err;
    }
  });

  app.openapi(verifyDomainRoute, async (c) => {
    const view = await checkDomain(deps(), account(c), c.req.valid("param").domain);
    return view ? c.json(domainJsonOf(view), 200) : apiError(c, 404);
  });

  app.openapi(rotateDkimRoute, async (c) => {
    const view = await rotateDkim(deps(), account(c), c.req.valid("param").domain);
    return view ? c.json(domainJsonOf(view), 200) : apiError(c, 404);
  });

  app.openapi(deleteDomainRoute, async (c) => {
    const removed = await deleteDomain(deps(), account(c), c.req.valid("param").domain);
    return removed ? c.json({}, 200) : apiError(c, 404);
  });
}
