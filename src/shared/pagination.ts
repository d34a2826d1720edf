import { z } from 'zod';

/** Where a page of a list sits: `next_offset` is null on the last page (and past any offset limit). */
export const PaginationSchema = z.object({
  limit: z.int(),
  offset: z.int(),
  total: z.int(),
  next_offset: z.int().nullable(),
});

/** A page of `item`s: `{data, pagination}`. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), pagination: PaginationSchema });
