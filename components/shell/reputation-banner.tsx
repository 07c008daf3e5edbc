import { Alert } from "@/components/ui/alert";
import type { ReputationBannerView } from "@/lib/dashboard/reputation";
import { ResumeSendingButton, type ResumeSending } from "./resume-sending-button";

/**
 * Shown on an account's pages to its admins, marketing staff and owners
 * while the reputation guardrails warn it or keep it paused (docs/adr/0136);
 * owners get the Resume button.
 */
export function ReputationBanner({
  banner,
  accountId,
  resume,
}: {
  banner: ReputationBannerView;
  accountId: string;
  /** Set for owners only. */
  resume?: ResumeSending;
}) {
  return (
    <div className="mb-4" data-testid="reputation-banner" data-status={banner.status}>
      {banner.status === "paused" ? (
        <Alert tone="error" title="Sending is paused for this account">
          <p>
            The reputation guardrails paused it: {banner.reason}. POST /email, batches and SMTP submission are refused until an owner resumes it;
            mail accepted before the pause is still delivered.
          </p>
          {resume ? (
            <div className="mt-2">
              <ResumeSendingButton accountId={accountId} resume={resume} />
            </div>
          ) : (
            <p className="mt-1">Ask an owner of this instance to resume it once the list is cleaned.</p>
          )}
        </Alert>
      ) : (
        <Alert tone="warning" title="This account's reputation is past its warning threshold">
          {banner.reason}. Past the pause threshold its sending stops until an owner resumes it.
        </Alert>
      )}
    </div>
  );
}
