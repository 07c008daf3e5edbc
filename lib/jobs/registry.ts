import { deliverQueue } from "./deliver";
import { inboundPostQueue } from "./inbound-post";
import { maintenanceJobs } from "./maintenance";
import { notifyQueue } from "./notify";

/**
 * Every job, in the order a worker process starts them (and stops them in
 * reverse). The queue start (lib/queue/boss.ts) creates the queue of each,
 * the worker start (lib/workers/start-workers.ts) works each: a new job is
 * its file in lib/jobs and one line here (docs/ARCHITECTURE.md, "Adding a job").
 */
export const JOBS = [deliverQueue, notifyQueue, inboundPostQueue, maintenanceJobs] as const;
