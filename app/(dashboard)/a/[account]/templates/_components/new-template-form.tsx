"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import { createTemplateAction } from "../actions";
import { TemplateFields, type TemplateDraft } from "./template-fields";

const EMPTY: TemplateDraft = { Name: "", Subject: "", HTMLContent: "", PlainContent: "" };

export function NewTemplateForm() {
  const accountId = useAccountId();
  const base = useAccountBase();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<TemplateDraft>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  if (!open) {
    return (
      <div>
        <Button onClick={() => setOpen(true)}>New template</Button>
      </div>
    );
  }
  return (
    <Card>
      <CardHeader title="New template" description="Version 1 of a new template. HTML or plain text is required, as for POST /email." />
      <CardBody>
        <form
          noValidate
          className="flex flex-col gap-3"
          onSubmit={async (e) => {
            e.preventDefault();
            setError(null);
            setErrors({});
            setPending(true);
            try {
              const result = await createTemplateAction(accountId, draft);
              if (!result.ok) {
                setError(result.error);
                setErrors(result.fieldErrors ?? {});
                return;
              }
              router.push(`${base}/templates/${result.data.id}`);
            } catch {
              setError("The request failed. Check your connection and sign-in, then try again.");
            } finally {
              setPending(false);
            }
          }}
        >
          <TemplateFields draft={draft} onChange={setDraft} errors={errors} />
          {error && <Alert tone="error" title="Not created">{error}</Alert>}
          <div className="flex gap-2">
            <Button type="submit" disabled={pending}>
              {pending ? "Creating…" : "Create template"}
            </Button>
            <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
