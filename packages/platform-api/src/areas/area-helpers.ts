/** Records shared by several areas: per-item bulk failures and bodyless answers. */
import { z } from 'zod';

/** `BulkActionError`: the status and message the single-item endpoint would have answered. */
export const BulkActionError = z.looseObject({ status: z.number().int(), message: z.string() });
export type BulkActionError = z.infer<typeof BulkActionError>;

/** A 204 (or any bodyless 2xx) answer. */
export const NoContent = z.void();

/** A 2xx whose body the vendor does not describe: whatever came back, unparsed. */
export const Unspecified = z.unknown();
