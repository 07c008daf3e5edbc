"use client";

import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import Link from "next/link";
import { useMemo, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button, buttonClass } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field, fieldClass, Input, Select } from "@/components/ui/input";
import { MAX_TAGS, TRACKING_HEADER } from "@/lib/contract/email";
import { emptyDraft, messageBytes, parseTags, validateDraft, type Draft, type FieldErrors } from "../_lib/draft";
import { AddressList } from "./address-list";
import { Attachments, formatBytes, type AttachmentItem } from "./attachments";
import { HtmlPreview } from "./html-preview";
import { loadTemplateAction } from "../../templates/actions";

type SendState =
  | { kind: "idle" }
  | { kind: "uploading"; loaded: number; total: number }
  | { kind: "waiting" }
  | { kind: "sent"; messageId: string };

/** Sends the draft and its files to the account's /compose/send with XMLHttpRequest, reporting upload progress. */
function upload(base: string, draft: Draft, files: File[], onProgress: (loaded: number, total: number) => void): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("draft", JSON.stringify(draft));
    files.forEach((f, i) => form.append(`file${i}`, f, f.name));
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${base}/compose/send`);
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.response });
    xhr.onerror = () => reject(new Error("network"));
    xhr.send(form);
  });
}

export function ComposeForm({
  domains,
  canOpenMessages,
  sandbox,
  templates = [],
}: {
  domains: { name: string; verified: boolean }[];
  canOpenMessages: boolean;
  sandbox: boolean;
  /** The account's templates: Compose can start from one (its Subject and bodies, as text to edit). */
  templates?: { id: number; name: string }[];
}) {
  const base = useAccountBase();
  const accountId = useAccountId();
  const [templateError, setTemplateError] = useState<string | null>(null);
  const firstVerified = domains.find((d) => d.verified)?.name ?? "";
  const [draft, setDraft] = useState<Draft>(() => emptyDraft(firstVerified));
  const [items, setItems] = useState<AttachmentItem[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [state, setState] = useState<SendState>({ kind: "idle" });
  const [bodyTab, setBodyTab] = useState<"html" | "text">("html");

  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const bodyBytes = useMemo(() => messageBytes({ html: draft.html, text: draft.text, attachments: [] }), [draft.html, draft.text]);
  const full: Draft = { ...draft, attachments: items.map((i) => ({ ...i.meta, size: i.file.size })) };
  const busy = state.kind === "uploading" || state.kind === "waiting";
  const selectedDomain = domains.find((d) => d.name === draft.from.domain);

  const send = async () => {
    const found = validateDraft(full);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setTimeout(() => document.querySelector<HTMLElement>("[aria-invalid='true'], [role='alert']")?.scrollIntoView({ block: "center" }), 0);
      return;
    }
    setState({ kind: "uploading", loaded: 0, total: 1 });
    try {
      const res = await upload(base, full, items.map((i) => i.file), (loaded, total) =>
        setState(loaded >= total ? { kind: "waiting" } : { kind: "uploading", loaded, total }),
      );
      const body = (res.body ?? {}) as { ok?: boolean; messageId?: string; errors?: FieldErrors; error?: string };
      if (res.status === 401) {
        setErrors({ _form: "Your session ended. Sign in again in another tab, then send: the form keeps its content." });
      } else if (res.status === 403) {
        setErrors({ _form: "Your role may not send messages." });
      } else if (body.ok && body.messageId) {
        setState({ kind: "sent", messageId: body.messageId });
        return;
      } else {
        setErrors(body.errors ?? { _form: `The server answered ${res.status}. Try again.` });
      }
    } catch {
      setErrors({ _form: "The upload failed (network). The form keeps its content: send again." });
    }
    setState({ kind: "idle" });
  };

  if (state.kind === "sent") {
    return (
      <Card data-testid="send-success">
        <CardBody className="flex flex-col gap-3">
          <Alert title="Message accepted">
            <p>
              MessageID{" "}
              {canOpenMessages ? (
                <Link href={`${base}/messages/${state.messageId}`} className="font-mono text-brand-700 underline dark:text-brand-100" data-testid="sent-message-id">
                  {state.messageId}
                </Link>
              ) : (
                <code data-testid="sent-message-id">{state.messageId}</code>
              )}
            </p>
          </Alert>
          <div className="flex flex-wrap gap-2">
            {canOpenMessages && (
              <Link href={`${base}/messages/${state.messageId}`} className={buttonClass("primary", "sm")}>
                Open its timeline
              </Link>
            )}
            {sandbox && (
              <Link href={`${base}/sandbox?q=${state.messageId}`} className={buttonClass("secondary", "sm")}>
                Find it in the sandbox inbox
              </Link>
            )}
            <Button variant="secondary" size="sm" onClick={() => setState({ kind: "idle" })}>
              Edit and send again
            </Button>
            <Button
              variant="ghost"
              size="sm"
              onClick={() => {
                setDraft(emptyDraft(firstVerified));
                setItems([]);
                setErrors({});
                setState({ kind: "idle" });
              }}
            >
              New message
            </Button>
          </div>
        </CardBody>
      </Card>
    );
  }

  const tags = parseTags(draft.tags);
  return (
    <form
      noValidate
      aria-label="Compose a message"
      className="flex flex-col gap-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void send();
      }}
    >
      {errors._form && (
        <Alert tone="error" title="Not sent">
          <span data-testid="form-error">{errors._form}</span>
        </Alert>
      )}
      {Object.keys(errors).some((k) => k !== "_form") && (
        <Alert tone="error" title="Not sent: check the highlighted fields">
          The message is unchanged; fix what is marked and send again.
        </Alert>
      )}
      <Card>
        <CardHeader title="Sender and recipients" />
        <CardBody className="flex flex-col gap-4">
          <div className="grid grid-cols-1 gap-3 md:grid-cols-[1fr_auto_1fr_1fr]">
            <Field id="from-local" label="From address" error={errors["From.email"]}>
              <Input
                id="from-local"
                value={draft.from.local}
                placeholder="hello"
                aria-invalid={Boolean(errors["From.email"])}
                aria-describedby={errors["From.email"] ? "from-local-error" : undefined}
                onChange={(e) => set("from", { ...draft.from, local: e.target.value.replace(/@.*/, "") })}
                autoComplete="off"
              />
            </Field>
            <span className="hidden self-start pt-8 text-slate-500 md:block" aria-hidden>
              @
            </span>
            <Field
              id="from-domain"
              label="Sender domain"
              error={errors.From}
              hint={selectedDomain && !selectedDomain.verified ? "Not verified: the API will refuse it (code 32)" : undefined}
            >
              <Select
                id="from-domain"
                value={draft.from.domain}
                aria-invalid={Boolean(errors.From)}
                onChange={(e) => set("from", { ...draft.from, domain: e.target.value })}
              >
                {domains.length === 0 && <option value="">No sender domains</option>}
                {domains.filter((d) => d.verified).map((d) => (
                  <option key={d.name} value={d.name}>
                    {d.name}
                  </option>
                ))}
                {domains.some((d) => !d.verified) && (
                  <optgroup label="Not verified (the API refuses them)">
                    {domains.filter((d) => !d.verified).map((d) => (
                      <option key={d.name} value={d.name}>
                        {d.name} (not verified)
                      </option>
                    ))}
                  </optgroup>
                )}
              </Select>
            </Field>
            <Field id="from-name" label="From name" error={errors["From.name"]}>
              <Input id="from-name" value={draft.from.name} placeholder="Acme Support" onChange={(e) => set("from", { ...draft.from, name: e.target.value })} />
            </Field>
          </div>
          <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
            <AddressList field="To" value={draft.to} onChange={(v) => set("to", v)} errors={errors} />
            <AddressList field="CC" value={draft.cc} onChange={(v) => set("cc", v)} errors={errors} />
            <AddressList field="BCC" value={draft.bcc} onChange={(v) => set("bcc", v)} errors={errors} />
            <AddressList field="ReplyTo" value={draft.replyTo} onChange={(v) => set("replyTo", v)} errors={errors} />
          </div>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Content" />
        {templates.length > 0 && (
          <div className="px-4 pt-3">
            <Field id="start-template" label="Start from a template" error={templateError ?? undefined} hint="Fills the subject and bodies with the template's latest version, variables as written">
              <Select
                id="start-template"
                defaultValue=""
                onChange={async (e) => {
                  const id = Number(e.target.value);
                  if (!id) return;
                  setTemplateError(null);
                  const result = await loadTemplateAction(accountId, id);
                  if (result.ok) setDraft((d) => ({ ...d, subject: result.data.subject, html: result.data.html, text: result.data.text }));
                  else setTemplateError(result.error);
                }}
              >
                <option value="">(none)</option>
                {templates.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name} (#{t.id})
                  </option>
                ))}
              </Select>
            </Field>
          </div>
        )}
        <CardBody className="flex flex-col gap-4">
          <Field id="subject" label="Subject" error={errors.Subject}>
            <Input
              id="subject"
              value={draft.subject}
              aria-invalid={Boolean(errors.Subject)}
              aria-describedby={errors.Subject ? "subject-error" : undefined}
              onChange={(e) => set("subject", e.target.value)}
            />
          </Field>
          <div role="tablist" aria-label="Body" className="flex gap-1 border-b border-slate-200 dark:border-slate-800">
            {(
              [
                ["html", "HTML body"],
                ["text", "Plain-text body"],
              ] as const
            ).map(([tab, text]) => (
              <button
                key={tab}
                type="button"
                role="tab"
                id={`tab-${tab}`}
                aria-selected={bodyTab === tab}
                aria-controls={`panel-${tab}`}
                onClick={() => setBodyTab(tab)}
                className={cn(
                  "-mb-px border-b-2 px-3 py-2 text-sm font-medium",
                  bodyTab === tab ? "border-brand-600 text-brand-700 dark:text-brand-100" : "border-transparent text-slate-600 dark:text-slate-400",
                )}
              >
                {text}
                {(tab === "html" ? draft.html : draft.text).trim() && <span aria-label="(has content)"> ●</span>}
              </button>
            ))}
          </div>
          <div id="panel-html" role="tabpanel" aria-labelledby="tab-html" hidden={bodyTab !== "html"} className="grid grid-cols-1 gap-3 lg:grid-cols-2">
            <div className="flex flex-col gap-1">
              <label htmlFor="html-body" className="text-sm font-medium">
                HTML
              </label>
              <textarea
                id="html-body"
                value={draft.html}
                onChange={(e) => set("html", e.target.value)}
                spellCheck={false}
                aria-invalid={Boolean(errors.HTMLContent)}
                className={cn(fieldClass, "h-80 py-2 font-mono text-xs")}
                placeholder="<p>Hello!</p>"
              />
            </div>
            <div className="flex flex-col gap-1">
              <span className="text-sm font-medium">Preview (sandboxed: no scripts, no remote images)</span>
              <HtmlPreview html={draft.html} inline={items} />
            </div>
          </div>
          <div id="panel-text" role="tabpanel" aria-labelledby="tab-text" hidden={bodyTab !== "text"}>
            <label htmlFor="text-body" className="text-sm font-medium">
              Plain text
            </label>
            <textarea
              id="text-body"
              value={draft.text}
              onChange={(e) => set("text", e.target.value)}
              aria-invalid={Boolean(errors.PlainContent)}
              className={cn(fieldClass, "mt-1 h-80 py-2 font-mono text-xs")}
              placeholder="Hello!"
            />
          </div>
          {(errors.HTMLContent || errors.PlainContent) && (
            <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
              {errors.HTMLContent ?? errors.PlainContent}
            </p>
          )}
          <p className="text-xs text-slate-600 dark:text-slate-400">Both bodies is best: the message is sent as multipart/alternative.</p>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Attachments and inline images" description="Any file type; bodies and attachments together at most 10 MB." />
        <CardBody>
          <Attachments
            items={items}
            onChange={setItems}
            bodyBytes={bodyBytes}
            errors={errors}
            onInsertImage={(cid, name) => set("html", `${draft.html}${draft.html && !draft.html.endsWith("\n") ? "\n" : ""}<img src="cid:${cid}" alt="${name.replace(/"/g, "")}">\n`)}
          />
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Tags and headers" />
        <CardBody className="grid grid-cols-1 gap-4 lg:grid-cols-2">
          <Field id="tags" label={`Tags (${tags.length} / ${MAX_TAGS})`} hint="Comma-separated, e.g. welcome, onboarding" error={errors.Tags}>
            <Input id="tags" value={draft.tags} onChange={(e) => set("tags", e.target.value)} aria-invalid={Boolean(errors.Tags)} aria-describedby={errors.Tags ? "tags-error" : "tags-hint"} />
          </Field>
          <fieldset className="flex flex-col gap-2">
            <legend className="text-sm font-medium">Custom headers</legend>
            {draft.headers.map((h, i) => (
              <div key={i} className="flex flex-col gap-1">
                <div className="grid grid-cols-[2fr_3fr_auto] gap-2">
                  <Input
                    aria-label={`Header ${i + 1} name`}
                    placeholder="X-Campaign"
                    value={h.name}
                    className="font-mono"
                    aria-invalid={Boolean(errors[`Headers[${i}]`])}
                    onChange={(e) => set("headers", draft.headers.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))}
                  />
                  <Input
                    aria-label={`Header ${i + 1} value`}
                    placeholder="value"
                    value={h.value}
                    onChange={(e) => set("headers", draft.headers.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
                  />
                  <Button variant="ghost" aria-label={`Remove header ${i + 1}`} onClick={() => set("headers", draft.headers.filter((_, j) => j !== i))}>
                    ✕
                  </Button>
                </div>
                {errors[`Headers[${i}]`] && <p className="text-xs font-medium text-red-700 dark:text-red-400">{errors[`Headers[${i}]`]}</p>}
              </div>
            ))}
            <div>
              <Button variant="ghost" size="sm" onClick={() => set("headers", [...draft.headers, { name: "", value: "" }])}>
                + Add header
              </Button>
            </div>
            <p className="text-xs text-slate-600 dark:text-slate-400">
              <code>{TRACKING_HEADER}: none|opens|clicks|all</code> turns tracking off or on for this message.
            </p>
          </fieldset>
        </CardBody>
      </Card>

      <div className="flex flex-wrap items-center gap-4 py-1">
        <Button type="submit" disabled={busy} data-testid="send">
          {state.kind === "uploading" ? "Uploading…" : state.kind === "waiting" ? "Sending…" : "Send"}
        </Button>
        {state.kind === "uploading" && (
          <div className="flex min-w-64 flex-1 items-center gap-2 text-xs" data-testid="upload-progress">
            <progress className="h-2 flex-1" max={state.total} value={state.loaded} aria-label="Upload progress" />
            <span className="tabular-nums">
              {formatBytes(state.loaded)} / {formatBytes(state.total)}
            </span>
          </div>
        )}
        {state.kind === "waiting" && <span className="text-sm text-slate-600 dark:text-slate-400">Uploaded; waiting for the API…</span>}
      </div>
    </form>
  );
}
