import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import type { SmtpSubmissionView } from "@/lib/dashboard/instance";
import { nodemailerConfig, postfixRelayhost, wpMailSmtp, type SmtpEndpoint } from "./smtp-snippets";

/**
 * Settings → SMTP submission (docs/smtp.md): where to connect, how to
 * authenticate, and copyable configurations. A server component of plain
 * props; `smtpSubmissionView` (lib/dashboard/instance.ts) reads them from the running server.
 */

export type SmtpSubmissionCardProps = SmtpSubmissionView;

function Snippet({ title, text, testId }: { title: string; text: string; testId: string }) {
  return (
    <div className="flex flex-col gap-2" data-testid={testId}>
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{title}</h3>
        <CopyButton value={text} label={`Copy ${title}`} />
      </div>
      <pre className="overflow-x-auto rounded-md bg-slate-50 p-3 text-xs dark:bg-slate-900">{text}</pre>
    </div>
  );
}

export function SmtpSubmissionCard(props: SmtpSubmissionCardProps) {
  const endpoint: SmtpEndpoint = { host: props.host, port: props.port, tlsPort: props.tlsPort, selfSigned: props.tls === "self-signed" };
  const off = !props.port && !props.tlsPort;
  const rows: [string, ReactNode][] = [
    ["Host", props.host],
    ["STARTTLS port", props.port ?? "off"],
    ["Implicit TLS port", props.tlsPort ?? "off"],
    ["User name", "anything (apikey by convention)"],
    ["Password", "an API key of this account (API keys, above)"],
    ["Authentication", "AUTH PLAIN or LOGIN, after TLS (plain text only from this machine)"],
  ];
  return (
    <Card id="smtp" data-testid="smtp-submission">
      <CardHeader
        title="SMTP submission"
        description="Send through SMTP with the same rules, events, webhooks and limits as the API. The reply to DATA carries the MessageID."
        actions={
          <Badge tone={props.tls === "none" ? "warning" : "success"}>
            {props.tls === "configured" ? "TLS certificate configured" : props.tls === "self-signed" ? "TLS: self-signed certificate" : "No TLS"}
          </Badge>
        }
      />
      <CardBody className="flex flex-col gap-4">
        {off ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            SMTP submission is off on this server (MAILROOM_SUBMISSION_PORT and MAILROOM_SUBMISSION_TLS_PORT).
          </p>
        ) : (
          <>
            <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
              {rows.map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="font-medium text-slate-600 dark:text-slate-400">{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
            {props.listenAddress === "127.0.0.1" && (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                The server listens on 127.0.0.1: only this machine can connect. Set MAILROOM_SUBMISSION_HOST=0.0.0.0 to accept others.
              </p>
            )}
            {props.tls === "self-signed" && (
              <p className="text-sm text-slate-600 dark:text-slate-400">
                The certificate is self-signed: clients must skip verification or pin it, until MAILROOM_SUBMISSION_TLS_CERT and _KEY are set.
              </p>
            )}
            <Snippet title="WP Mail SMTP" text={wpMailSmtp(endpoint)} testId="smtp-wp" />
            <Snippet title="Postfix relayhost" text={postfixRelayhost(endpoint)} testId="smtp-postfix" />
            <Snippet title="nodemailer" text={nodemailerConfig(endpoint)} testId="smtp-nodemailer" />
          </>
        )}
      </CardBody>
    </Card>
  );
}
