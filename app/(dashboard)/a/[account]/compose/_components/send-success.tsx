"use client";

import Link from "next/link";
import { Alert } from "@/components/ui/alert";
import { Button, buttonClass } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";

/** What the form shows once the API accepted the message: its MessageID and where to go next. */
export function SendSuccess({
  base,
  messageId,
  canOpenMessages,
  sandbox,
  onEditAgain,
  onNewMessage,
}: {
  base: string;
  messageId: string;
  canOpenMessages: boolean;
  sandbox: boolean;
  onEditAgain: () => void;
  onNewMessage: () => void;
}) {
  return (
    <Card data-testid="send-success">
      <CardBody className="flex flex-col gap-3">
        <Alert title="Message accepted">
          <p>
            MessageID{" "}
            {canOpenMessages ? (
              <Link href={`${base}/messages/${messageId}`} className="font-mono text-brand-700 underline dark:text-brand-100" data-testid="sent-message-id">
                {messageId}
              </Link>
            ) : (
              <code data-testid="sent-message-id">{messageId}</code>
            )}
          </p>
        </Alert>
        <div className="flex flex-wrap gap-2">
          {canOpenMessages && (
            <Link href={`${base}/messages/${messageId}`} className={buttonClass("primary", "sm")}>
              Open its timeline
            </Link>
          )}
          {sandbox && (
            <Link href={`${base}/sandbox?q=${messageId}`} className={buttonClass("secondary", "sm")}>
              Find it in the sandbox inbox
            </Link>
          )}
          <Button variant="secondary" size="sm" onClick={onEditAgain}>
            Edit and send again
          </Button>
          <Button variant="ghost" size="sm" onClick={onNewMessage}>
            New message
          </Button>
        </div>
      </CardBody>
    </Card>
  );
}
