import { Card, CardHeader } from "@/components/ui/card";

/**
 * A message's HTML in a sandboxed frame (the sandbox and inbound message
 * views): no scripts, no forms, no same-origin access; only links may open a
 * new tab. The document is prepared by the sandbox's HTML pass, which keeps
 * remote images off. One definition, so the frame's restrictions cannot drift.
 */
export function SafeHtmlFrame({ doc, description, testId, className }: { doc: string; description: string; testId: string; className: string }) {
  return (
    <Card>
      <CardHeader title="HTML" description={description} />
      <iframe
        title="HTML part of the message"
        sandbox="allow-popups allow-popups-to-escape-sandbox"
        srcDoc={doc}
        referrerPolicy="no-referrer"
        className={`w-full rounded-b-lg bg-white ${className}`}
        data-testid={testId}
      />
    </Card>
  );
}
