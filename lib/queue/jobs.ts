/**
 * Job names and payloads. Jobs refer to rows by id; the rows are the truth,
 * a job only says "look at this now".
 */
export const QUEUE = {
  /** One per message and recipient domain. */
  deliver: "deliver",
  /** One per webhook notification (row of webhook_notifications). */
  notify: "notify",
  /** Periodic: retention purge, old limit counters. */
  maintenance: "maintenance",
} as const;

export type QueueName = (typeof QUEUE)[keyof typeof QUEUE];

export interface DeliverJob {
  messageId: string;
  /** Recipient rows (message_recipients.id) of one domain. */
  recipientIds: number[];
  /** Request id of the API call that accepted the message (log correlation). */
  requestId?: string;
}

export interface NotifyJob {
  notificationId: number;
}
