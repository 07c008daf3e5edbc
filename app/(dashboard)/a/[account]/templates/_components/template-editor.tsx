"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field, fieldClass, Input } from "@/components/ui/input";
import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import type { RenderTemplateResponse } from "@/lib/contract/templates";
import { archiveTemplateAction, renderDraftAction, saveTemplateAction, sendTestAction } from "../actions";
import { TemplateFields, type TemplateDraft } from "./template-fields";

/** The editor's labels of the fields the API names in a refusal of the typed content. */
const PART_LABEL: Record<string, string> = { Subject: "Subject", HTMLContent: "HTML", PlainContent: "Plain text" };

/**
 * The editor of a template: its fields (saving makes a new version), a
 * sample model and the live preview of what is being typed, rendered with
 * that model by the API without saving anything (POST /templates/render,
 * updated 400 ms after the last keystroke in either), a test send of the
 * saved version, and archiving.
 */
export function TemplateEditor({
  id,
  version,
  initial,
  canOpenMessages,
  sandbox,
}: {
  id: number;
  version: number;
  initial: TemplateDraft;
  canOpenMessages: boolean;
  sandbox: boolean;
}) {
  const accountId = useAccountId();
  const base = useAccountBase();
  const router = useRouter();
  const [draft, setDraft] = useState(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [notice, setNotice] = useState<{ tone: "info" | "error"; title: string; text?: string } | null>(null);
  const [pending, setPending] = useState(false);
  const [model, setModel] = useState('{\n  "name": "Ann"\n}');
  const [preview, setPreview] = useState<RenderTemplateResponse | null>(null);
  const [previewError, setPreviewError] = useState<string | null>(null);
  const [to, setTo] = useState("");
  const [sent, setSent] = useState<string | null>(null);

  const unsaved = draft.Subject !== initial.Subject || draft.HTMLContent !== initial.HTMLContent || draft.PlainContent !== initial.PlainContent;
  const { Subject, HTMLContent, PlainContent } = draft;

  // The preview follows what is typed (content and model), 400 ms after the last keystroke; nothing is saved.
  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(async () => {
      try {
        const result = await renderDraftAction(accountId, { Subject, HTMLContent, PlainContent, model });
        if (cancelled) return;
        if (result.ok) {
          setPreview(result.data);
          setPreviewError(null);
        } else {
          const field = result.fieldErrors && Object.entries(result.fieldErrors)[0];
          setPreviewError(result.fieldErrors?.TemplateModel ?? (field ? `${PART_LABEL[field[0]] ?? field[0]} cannot be previewed: ${field[1]}` : result.error));
        }
      } catch {
        if (!cancelled) setPreviewError("The preview could not be loaded");
      }
    }, 400);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [accountId, Subject, HTMLContent, PlainContent, model]);

  async function save(e: React.FormEvent) {
    e.preventDefault();
    setErrors({});
    setNotice(null);
    setPending(true);
    try {
      const result = await saveTemplateAction(accountId, { id, ...draft });
      if (!result.ok) {
        setErrors(result.fieldErrors ?? {});
        setNotice({ tone: "error", title: "Not saved", text: result.error });
        return;
      }
      setNotice({ tone: "info", title: `Saved as version ${result.data.version}` });
      router.refresh();
    } catch {
      setNotice({ tone: "error", title: "Not saved", text: "The request failed. Check your connection and sign-in, then try again." });
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
      <Card>
        <CardHeader title={`Edit (latest: version ${version})`} description="Saving makes a new version; earlier versions never change." />
        <CardBody>
          <form noValidate onSubmit={save} className="flex flex-col gap-3">
            <TemplateFields draft={draft} onChange={setDraft} errors={errors} />
            {notice && (
              <Alert tone={notice.tone} title={notice.title}>
                {notice.text}
              </Alert>
            )}
            <div className="flex flex-wrap gap-2">
              <Button type="submit" disabled={pending}>
                {pending ? "Saving…" : "Save as a new version"}
              </Button>
              <Button
                type="button"
                variant="danger"
                onClick={async () => {
                  if (!window.confirm("Archive this template? It can no longer be sent; messages already sent keep their content.")) return;
                  const result = await archiveTemplateAction(accountId, id);
                  if (result.ok) router.push(`${base}/templates`);
                  else setNotice({ tone: "error", title: "Not archived", text: result.error });
                }}
              >
                Archive
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
      <Card>
        <CardHeader
          title={unsaved ? "Preview of your unsaved edits" : `Preview of version ${version}`}
          description="What is typed on the left, rendered by the API with the sample model (POST /templates/render); nothing is saved until you save."
        />
        <CardBody className="flex flex-col gap-3">
          <Field id="template-model" label="Sample model (JSON)" error={previewError ?? undefined}>
            <textarea
              id="template-model"
              value={model}
              onChange={(e) => setModel(e.target.value)}
              spellCheck={false}
              className={cn(fieldClass, "h-32 py-2 font-mono text-xs")}
            />
          </Field>
          <div>
            <p className="text-xs font-medium uppercase text-slate-600 dark:text-slate-400">Subject</p>
            <p className="break-words text-sm" data-testid="preview-subject">
              {preview?.Subject ?? ""}
            </p>
          </div>
          {preview?.HTMLContent !== undefined && (
            <iframe
              title="Rendered HTML"
              sandbox=""
              srcDoc={preview.HTMLContent}
              className="h-64 w-full rounded-md border border-slate-300 bg-white dark:border-slate-700"
              data-testid="preview-html"
            />
          )}
          {preview?.PlainContent !== undefined && (
            <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md bg-slate-100 p-2 text-xs dark:bg-slate-800" data-testid="preview-text">
              {preview.PlainContent}
            </pre>
          )}
          <form
            noValidate
            className="flex flex-col gap-2 border-t border-slate-200 pt-3 dark:border-slate-700"
            onSubmit={async (e) => {
              e.preventDefault();
              setSent(null);
              const result = await sendTestAction(accountId, { id, version, model, to });
              if (result.ok) setSent(result.data.messageId);
              else setNotice({ tone: "error", title: "Test not sent", text: result.fieldErrors?.to ?? result.error });
            }}
          >
            <Field
              id="template-test-to"
              label="Send a test to"
              hint={`Sends saved version ${version}${unsaved ? " (not your unsaved edits)" : ""}. ${sandbox ? "Sandbox mode: the test lands in the Sandbox inbox." : "This server delivers for real: the test goes to this address."}`}
            >
              <Input id="template-test-to" type="email" value={to} onChange={(e) => setTo(e.target.value)} placeholder="you@example.org" />
            </Field>
            <div>
              <Button type="submit" variant="secondary" disabled={to.trim() === ""}>
                Send a test
              </Button>
            </div>
            {sent && (
              <Alert title="Test accepted">
                {canOpenMessages ? (
                  <Link className="underline" href={`${base}/messages/${sent}`} data-testid="test-message-link">
                    Message {sent}
                  </Link>
                ) : (
                  `Message ${sent}`
                )}
              </Alert>
            )}
          </form>
        </CardBody>
      </Card>
    </div>
  );
}
