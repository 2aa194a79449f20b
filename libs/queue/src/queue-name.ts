/**
 * BullMQ queues. The values are queue names in Redis: never rename one, only add. Jobs are
 * grouped by how they must be scheduled (escalation steps must not wait behind a digest run).
 */
export enum QueueName {
  Escalations = 'escalations',
  Deliveries = 'deliveries',
  Digests = 'digests',
  Maintenance = 'maintenance',
  /** Escalation pages, a batch to a job: few at a time per worker, so a burst spreads evenly. */
  Pages = 'pages',
  /**
   * Escalation e-mails, calls and texts, apart from in-app pages: a slow SMTP server or phone
   * provider holds up only these.
   */
  PageSends = 'page-sends',
  /**
   * Pages of platform-wide notifications (incidents, broadcasts): long batches of mostly this
   * process's CPU, apart from the deliveries they queue.
   */
  FanOuts = 'fan-outs',
}
