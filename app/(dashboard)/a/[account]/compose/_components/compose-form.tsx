"use client";

import { useAccountBase, useAccountId } from "@/components/shell/use-account";
import { useMemo, useState } from "react";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { emptyDraft, messageBytes, validateDraft, type Draft, type FieldErrors } from "../_lib/draft";
import { appendInlineImage, firstVerifiedDomain, withAttachments, withTemplate, type DomainChoice, type SetDraftField } from "../_lib/draft-edits";
import { hasErrors, IDLE, isBusy, NETWORK_FAILURE, progressState, readSendAnswer, UPLOAD_STARTED, type SendState } from "../_lib/send-state";
import { upload } from "../_lib/upload";
import { loadTemplateAction } from "../../templates/actions";
import { Attachments, type AttachmentItem } from "./attachments";
import { ContentCard, type BodyTab } from "./content-card";
import { revealFirstError, SendBar, SendErrors } from "./send-bar";
import { SendSuccess } from "./send-success";
import { SenderCard } from "./sender-card";
import { TagsAndHeadersCard } from "./tags-headers-card";

/**
 * The compose form: a draft edited card by card, then sent in steps (check
 * it as the API would, upload it with its files, read the answer). The
 * steps' rules are in ../_lib (send-state.ts, draft-edits.ts, upload.ts).
 */
export function ComposeForm({
  domains,
  canOpenMessages,
  sandbox,
  templates = [],
}: {
  domains: DomainChoice[];
  canOpenMessages: boolean;
  sandbox: boolean;
  /** The account's templates: Compose can start from one (its Subject and bodies, as text to edit). */
  templates?: { id: number; name: string }[];
}) {
  const base = useAccountBase();
  const accountId = useAccountId();
  const [templateError, setTemplateError] = useState<string | null>(null);
  const firstVerified = firstVerifiedDomain(domains);
  const [draft, setDraft] = useState<Draft>(() => emptyDraft(firstVerified));
  const [items, setItems] = useState<AttachmentItem[]>([]);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [state, setState] = useState<SendState>(IDLE);
  const [bodyTab, setBodyTab] = useState<BodyTab>("html");

  const set: SetDraftField = (key, value) => setDraft((d) => ({ ...d, [key]: value }));
  const bodyBytes = useMemo(() => messageBytes({ html: draft.html, text: draft.text, attachments: [] }), [draft.html, draft.text]);
  const full = withAttachments(draft, items);
  const fields = { draft, errors, set };

  const send = async () => {
    const found = validateDraft(full);
    setErrors(found);
    if (hasErrors(found)) return revealFirstError();
    setState(UPLOAD_STARTED);
    const files = items.map((i) => i.file);
    const outcome = await upload(base, full, files, (loaded, total) => setState(progressState(loaded, total)))
      .then(readSendAnswer)
      .catch(() => NETWORK_FAILURE);
    if (outcome.kind === "sent") return setState(outcome);
    setErrors(outcome.errors);
    setState(IDLE);
  };

  const startFromTemplate = async (id: number) => {
    setTemplateError(null);
    const result = await loadTemplateAction(accountId, id);
    if (result.ok) setDraft((d) => withTemplate(d, result.data));
    else setTemplateError(result.error);
  };

  const startOver = () => {
    setDraft(emptyDraft(firstVerified));
    setItems([]);
    setErrors({});
    setState(IDLE);
  };

  if (state.kind === "sent") {
    return <SendSuccess base={base} messageId={state.messageId} canOpenMessages={canOpenMessages} sandbox={sandbox} onEditAgain={() => setState(IDLE)} onNewMessage={startOver} />;
  }

  return (
    <form
      noValidate
      aria-label="Compose a message"
      className="flex flex-col gap-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (!isBusy(state)) void send();
      }}
    >
      <SendErrors errors={errors} />
      <SenderCard domains={domains} {...fields} />
      <ContentCard templates={templates} templateError={templateError} onTemplate={startFromTemplate} bodyTab={bodyTab} onBodyTab={setBodyTab} inline={items} {...fields} />
      <Card>
        <CardHeader title="Attachments and inline images" description="Any file type; bodies and attachments together at most 10 MB." />
        <CardBody>
          <Attachments items={items} onChange={setItems} bodyBytes={bodyBytes} errors={errors} onInsertImage={(cid, name) => set("html", appendInlineImage(draft.html, cid, name))} />
        </CardBody>
      </Card>
      <TagsAndHeadersCard {...fields} />
      <SendBar state={state} />
    </form>
  );
}
