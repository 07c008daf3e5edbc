import { Card, CardHeader } from "@/components/ui/card";

/**
 * A message's HTML in a sandboxed frame (the sandbox and inbound message
 * views): no scripts, no forms, no same-origin access; only links may open a
 * new tab, and that tab stays sandboxed as the frame (no
 * `allow-popups-to-escape-sandbox`): a page a message links to runs no script
 * there, so even with `rel="opener"` it cannot navigate the dashboard's tab
 * (ADR 0601). The document is prepared by the sandbox's HTML pass, which keeps
 * remote images off and makes its links noopener. One definition, so the
 * frame's restrictions cannot drift.
 */
const SAFE_HTML_FRAME_SANDBOX = "allow-popups";

export function SafeHtmlFrame({ doc, description, testId, className }: { doc: string; description: string; testId: string; className: string }) {
  return (
    <Card>
      <CardHeader title="HTML" description={description} />
      <iframe
        title="HTML part of the message"
        sandbox={SAFE_HTML_FRAME_SANDBOX}
        srcDoc={doc}
        referrerPolicy="no-referrer"
        className={`w-full rounded-b-lg bg-white ${className}`}
        data-testid={testId}
      />
    </Card>
  );
}
