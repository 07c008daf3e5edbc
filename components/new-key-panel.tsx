import type { ReactNode } from "react";
import { CopyButton } from "@/components/ui/copy-button";

/**
 * A secret shown once, right after it was made (an API key of the settings
 * page, the first key of a new account): the key, a copy button and the
 * caller's next step. `lead` names what was made; the panel adds that it is
 * not shown again.
 */
export function NewKeyPanel({ lead, secret, testId, children }: { lead: ReactNode; secret: string; testId: string; children?: ReactNode }) {
  return (
    <div role="status" className="rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950">
      <p className="font-semibold">{lead}: copy it now, it is not shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid={testId} className="break-all rounded bg-white px-2 py-1 font-mono text-xs dark:bg-slate-900">
          {secret}
        </code>
        <CopyButton value={secret} />
        {children}
      </div>
    </div>
  );
}
