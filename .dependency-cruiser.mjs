// The import rules of docs/ARCHITECTURE.md ("Where things live"), checked by
// `npm run lint` (docs/adr/0010). Type-only imports count: a type import
// still ties one layer to another.

/** Our own code outside the given folders (`lib/x`); lib/logger.ts, a leaf, is open to every layer. */
const oursExcept = (...folders) => ({
  path: "^(lib|app|components|cli|bin|server\\.ts|scripts)(/|$)",
  pathNot: ["^lib/logger\\.ts$", ...folders.map((f) => `^${f}/`)],
});

const FRAMEWORKS = "^(node_modules/)?(next|react|react-dom|next-auth|hono|@hono/[^/]+)(/|$)";

export default {
  forbidden: [
    {
      name: "no-folder-cycle",
      comment: "Folders under lib/ form layers: no folder may reach itself through its imports.",
      severity: "error",
      scope: "folder",
      from: { path: "^lib/[^/]+$" },
      to: { circular: true },
    },
    {
      name: "no-module-cycle",
      comment: "No module may reach itself through its imports.",
      severity: "error",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    {
      name: "contract-imports-nothing-of-ours",
      comment: "lib/contract is the wire contract: zod only.",
      severity: "error",
      from: { path: "^lib/contract/" },
      to: oursExcept("lib/contract"),
    },
    {
      name: "config-imports-nothing-of-ours",
      comment: "lib/config.ts and lib/logger.ts import at most the contract's vocabulary; lib/runtime.ts holds the context and imports only its type.",
      severity: "error",
      from: { path: "^lib/(config|runtime|logger)\\.ts$" },
      to: { ...oursExcept(), pathNot: ["^lib/context\\.ts$", "^lib/contract/"] },
    },
    {
      name: "leaf-folders-import-nothing-of-ours",
      comment: "lib/tracking (token codecs, tracking HTML) and lib/net (address ranges) are pure leaves.",
      severity: "error",
      from: { path: "^lib/(tracking|net)/" },
      to: oursExcept("lib/$1"),
    },
    {
      name: "storage-imports-contract-only",
      comment: "lib/storage is the bottom layer: it may import the contract's vocabulary, nothing else of ours.",
      severity: "error",
      from: { path: "^lib/storage/" },
      to: oursExcept("lib/storage", "lib/contract"),
    },
    {
      name: "queue-imports-storage-and-contract-only",
      comment: "lib/queue is pg-boss wiring over storage.",
      severity: "error",
      from: { path: "^lib/queue/" },
      to: oursExcept("lib/queue", "lib/storage", "lib/contract"),
    },
    {
      name: "domain-is-framework-free",
      comment: "lib/domain never imports Next, React, Auth.js or Hono.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: { path: FRAMEWORKS },
    },
    {
      name: "domain-imports-lower-layers-only",
      comment: "lib/domain imports contract, storage, queue and tracking; never the adapters above it (app, delivery, inbound, webhooks, http, api, auth, api-client) nor the process wiring.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: oursExcept("lib/domain", "lib/contract", "lib/storage", "lib/queue", "lib/tracking"),
    },
    {
      name: "api-never-imports-storage-schema",
      comment: "API handlers and the HTTP layer call lib/domain; they never touch the storage schema.",
      severity: "error",
      from: { path: "^lib/(api|http)/" },
      to: { path: "^lib/storage/schema\\.ts$" },
    },
    {
      name: "http-below-api",
      comment: "lib/http (auth by key, bodies, envelope) is used by lib/api, never the reverse.",
      severity: "error",
      from: { path: "^lib/http/" },
      to: { path: "^lib/(api|api-client|auth|delivery|inbound|webhooks)/" },
    },
    {
      name: "lib-never-imports-app",
      comment: "Nothing under lib/ imports the Next.js app or its components.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "dashboard-client-and-auth-not-adapters",
      comment: "lib/api-client and lib/auth reach data through the API or lib/domain, never storage or the workers.",
      severity: "error",
      from: { path: "^lib/(api-client|auth)/" },
      to: { path: "^lib/(storage|queue|delivery|inbound|webhooks|api|http)/" },
    },
    {
      name: "inbound-never-imports-delivery",
      comment: "lib/inbound (inbound SMTP, reports, sandbox MX) never imports lib/delivery.",
      severity: "error",
      from: { path: "^lib/inbound/" },
      to: { path: "^lib/(delivery|webhooks|api|http)/" },
    },
    {
      name: "delivery-never-imports-inbound",
      comment: "lib/delivery never imports lib/inbound (their composition lives in the process start).",
      severity: "error",
      from: { path: "^lib/delivery/", pathNot: "^lib/delivery/start\\.ts$" },
      to: { path: "^lib/(inbound|webhooks|api|http)/" },
    },
    {
      // TEMPORARY, removed at the merge of the job-runner work (issue 13 item 2):
      // lib/delivery/start.ts still starts the inbound SMTP servers; that
      // composition moves out of lib/delivery there. Exactly this one edge.
      name: "delivery-start-never-imports-inbound",
      severity: "error",
      from: { path: "^lib/delivery/start\\.ts$" },
      to: { path: "^lib/(webhooks|api|http)/" },
    },
    {
      name: "webhooks-below-api",
      comment: "lib/webhooks (signing, SSRF guard, dispatch) never imports delivery, inbound or the HTTP API.",
      severity: "error",
      from: { path: "^lib/webhooks/" },
      to: { path: "^lib/(delivery|inbound|api|http|api-client|auth)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    cache: { folder: "node_modules/.cache/dependency-cruiser", strategy: "content" },
  },
};
