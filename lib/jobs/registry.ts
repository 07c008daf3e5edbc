import { deliverQueue } from "./deliver";
import { inboundPostQueue } from "./inbound-post";
import { maintenanceJobs } from "./maintenance";
import { notifyQueue } from "./notify";

/**
 * Every job, in the order a worker process starts them (and stops them in
 * reverse). Data only: the queue start (lib/queue/boss.ts) creates the queue
 * of each, the worker start (lib/workers/start-workers.ts) pairs each with
 * its worker by name and works it (docs/adr/0050). A new job is its file in
 * lib/jobs, one line here and one in the workers' table
 * (docs/ARCHITECTURE.md, "Adding a job").
 */
export const JOBS = [deliverQueue, notifyQueue, inboundPostQueue, maintenanceJobs] as const;

/** The name of a job of the registry (the keys of the workers' table). */
export type JobName = (typeof JOBS)[number]["name"];
