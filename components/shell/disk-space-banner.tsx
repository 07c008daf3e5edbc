import { formatBytes } from "@/components/format";
import { Alert } from "@/components/ui/alert";
import type { DiskSpaceView } from "@/lib/dashboard/instance";

/**
 * Shown on every dashboard page while the data directory's free space is
 * below MAILROOM_DISK_WARN_FREE (a warning) or MAILROOM_DISK_MIN_FREE (new
 * messages are refused), from the app's latest sample (docs/OPERATIONS.md,
 * "Disk space").
 */
export function DiskSpaceBanner({ disk }: { disk: DiskSpaceView }) {
  const free = `${formatBytes(disk.freeBytes)} free of ${formatBytes(disk.totalBytes)}`;
  return (
    <div className="mb-4" data-testid="disk-space-banner" data-level={disk.level}>
      {disk.level === "critical" ? (
        <Alert tone="error" title="The server's disk is full: new messages are refused">
          The data directory has {free}, below the {formatBytes(disk.thresholdBytes)} kept in reserve (MAILROOM_DISK_MIN_FREE). The API and SMTP
          submission answer &ldquo;try again later&rdquo; until space is freed; messages already accepted are still delivered.
        </Alert>
      ) : (
        <Alert tone="warning" title="The server's disk is running low">
          The data directory has {free}, below {formatBytes(disk.thresholdBytes)} (MAILROOM_DISK_WARN_FREE). Free some space before new messages
          are refused.
        </Alert>
      )}
    </div>
  );
}
