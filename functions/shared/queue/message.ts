import * as z from 'zod';

/**
 * What capture puts on the ingest queue: PostHog's capture envelope (`posthog/api/capture.py`), with several
 * events of one request packed into one message to save SQS requests.
 */
export const capturedEventSchema = z.object({
  uuid: z.string(),
  distinct_id: z.string(),
  /** The raw event as the SDK sent it (properties defaulted to {}, /engage/ rewritten). */
  data: z.record(z.string(), z.unknown()),
});

export const captureMessageSchema = z.object({
  v: z.literal(1),
  project_id: z.number().int().positive(),
  /** When capture received the request (ISO 8601): the reference for clock-skew correction. */
  now: z.string(),
  sent_at: z.string().nullable(),
  ip: z.string().nullable(),
  site_url: z.string().nullable(),
  events: z.array(capturedEventSchema).min(1),
});

export type CapturedEvent = z.infer<typeof capturedEventSchema>;
export type CaptureMessage = z.infer<typeof captureMessageSchema>;
