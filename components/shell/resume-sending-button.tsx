"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";

export type ResumeSending = (input: { accountId: string }) => Promise<{ ok: true } | { ok: false; error: string }>;

/** An owner's Resume of a paused account (a server action, role-checked there). */
export function ResumeSendingButton({ accountId, resume }: { accountId: string; resume: ResumeSending }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button
        variant="secondary"
        size="sm"
        disabled={pending}
        data-testid="resume-sending"
        onClick={() =>
          startTransition(async () => {
            const result = await resume({ accountId });
            if (result.ok) {
              setError(null);
              router.refresh();
            } else setError(result.error);
          })
        }
      >
        Resume sending
      </Button>
      {error && (
        <span role="alert" className="text-sm">
          {error}
        </span>
      )}
    </div>
  );
}
