/**
 * Copyable client configurations for the SMTP submission server (the
 * Settings card): WP Mail SMTP, Postfix as a smart host, nodemailer. Pure.
 */

export interface SmtpEndpoint {
  host: string;
  /** STARTTLS port, undefined when off. */
  port?: number;
  /** Implicit TLS port, undefined when off. */
  tlsPort?: number;
  selfSigned: boolean;
}

const KEY = "mr_… (an API key of this account)";

/** The port a client should use: STARTTLS when on, else implicit TLS. */
function preferred(e: SmtpEndpoint): { port: number; implicit: boolean } | undefined {
  if (e.port) return { port: e.port, implicit: false };
  if (e.tlsPort) return { port: e.tlsPort, implicit: true };
  return undefined;
}

export function wpMailSmtp(e: SmtpEndpoint): string {
  const p = preferred(e);
  if (!p) return "";
  return [
    "// wp-config.php (WP Mail SMTP, mailer \"Other SMTP\")",
    "define( 'WPMS_ON', true );",
    "define( 'WPMS_MAILER', 'smtp' );",
    `define( 'WPMS_SMTP_HOST', '${e.host}' );`,
    `define( 'WPMS_SMTP_PORT', ${p.port} );`,
    `define( 'WPMS_SSL', '${p.implicit ? "ssl" : "tls"}' );`,
    "define( 'WPMS_SMTP_AUTH', true );",
    "define( 'WPMS_SMTP_USER', 'apikey' );",
    `define( 'WPMS_SMTP_PASS', '${KEY}' );`,
    "define( 'WPMS_SMTP_AUTOTLS', true );",
  ].join("\n");
}

export function postfixRelayhost(e: SmtpEndpoint): string {
  const p = preferred(e);
  if (!p) return "";
  return [
    "# /etc/postfix/main.cf",
    `relayhost = [${e.host}]:${p.port}`,
    "smtp_sasl_auth_enable = yes",
    `smtp_sasl_password_maps = static:apikey:${KEY.split(" ")[0]}`,
    "smtp_sasl_security_options = noanonymous",
    ...(p.implicit ? ["smtp_tls_wrappermode = yes"] : []),
    `smtp_tls_security_level = ${e.selfSigned ? "encrypt" : "verify"}`,
  ].join("\n");
}

export function nodemailerConfig(e: SmtpEndpoint): string {
  const p = preferred(e);
  if (!p) return "";
  return [
    'import nodemailer from "nodemailer";',
    "",
    "const transport = nodemailer.createTransport({",
    `  host: "${e.host}",`,
    `  port: ${p.port},`,
    `  secure: ${p.implicit}, // ${p.implicit ? "implicit TLS" : "STARTTLS"}`,
    "  auth: { user: \"apikey\", pass: process.env.MAILROOM_API_KEY },",
    ...(e.selfSigned ? ["  tls: { rejectUnauthorized: false }, // the server's certificate is self-signed"] : []),
    "});",
  ].join("\n");
}
