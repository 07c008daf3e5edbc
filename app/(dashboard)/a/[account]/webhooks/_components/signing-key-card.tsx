"use client";

import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmButton } from "@/components/ui/confirm-dialog";
import { CopyButton } from "@/components/ui/copy-button";
import { useAccountId } from "@/components/shell/use-account";
import { revealSigningKeyAction, rotateSigningKeyAction } from "../actions";

/** The account's webhook signing key: hidden until asked for, rotatable after a confirmation. */
export function SigningKeyCard() {
  const accountId = useAccountId();
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rotated, setRotated] = useState(false);
  const call = async (action: typeof revealSigningKeyAction) => {
    setError(null);
    try {
      const r = await action(accountId, undefined);
      if (r.ok) setKey(r.data.key);
      else setError(r.error);
      return r.ok;
    } catch {
      setError("The request failed. Check your connection and sign-in, then try again.");
      return false;
    }
  };
  return (
    <Card>
      <CardHeader
        title="Signing key"
        description="Every notification is signed with this key: Signature = HMAC-SHA256(key, Timestamp + Token), plus the Standard Webhooks headers. Receivers verify with it."
      />
      <CardBody className="flex flex-col gap-3">
        <div className="flex flex-wrap items-center gap-2">
          <code
            data-testid="signing-key"
            className="min-w-0 flex-1 break-all rounded bg-slate-100 px-2 py-1.5 font-mono text-xs dark:bg-slate-800"
            aria-label={key ? "Signing key" : "Signing key (hidden)"}
          >
            {key ?? "whsec_••••••••••••••••••••••••••••••••••••••••"}
          </code>
          {key ? (
            <>
              <CopyButton value={key} />
              <Button variant="ghost" size="sm" onClick={() => setKey(null)}>
                Hide
              </Button>
            </>
          ) : (
            <Button variant="secondary" size="sm" onClick={() => void call(revealSigningKeyAction)}>
              Reveal
            </Button>
          )}
          <ConfirmButton
            label="Rotate…"
            title="Rotate the signing key?"
            confirmLabel="Rotate the key"
            testId="rotate-key"
            onConfirm={async () => setRotated(await call(rotateSigningKeyAction))}
          >
            <p>
              A new key is made and every notification from now on is signed with it, retries of earlier notifications included. Receivers
              that still check against the old key will reject them until you give them the new one. The old key cannot be restored.
            </p>
          </ConfirmButton>
        </div>
        {rotated && <Alert title="The signing key was rotated">The new key is shown above. Give it to your receivers now.</Alert>}
        {error && <Alert tone="error" title="Not done">{error}</Alert>}
      </CardBody>
    </Card>
  );
}
