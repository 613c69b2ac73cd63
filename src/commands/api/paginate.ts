import { ServiceError } from '../../errors.js';
import { cloudRequest, type RawRequest } from '../../api/raw.js';
import type { CloudClient } from '../../api/client.js';
import { PAGED_ENDPOINT } from '../../api/reads.js';
import type { WorkflowInstance, WorkflowListData } from '../../schemas/workflow.js';
import { said } from '../../said.js';

/** Page size asked for when `-f size=N` does not say (as `workflow list --all`). */
const PAGE_SIZE = '100';

/**
 * `api GET /service/cloud/workflow/instancelist --paginate`: every page, walked as `workflow list
 * --all` walks them (src/api/pages.ts: until `count` distinct instances or an empty page), each
 * page's new instances handed to `take` as the walk goes (printed as one answer's data:
 * `{"lists": [...every instance], "count": N}`). Returns `count`.
 */
export async function paginate(
  client: CloudClient,
  req: RawRequest,
  take: (fresh: WorkflowInstance[]) => void | Promise<void>,
): Promise<number> {
  const { walkPages } = await import('../../api/pages.js');
  const first = Number(req.query.page ?? 1);
  return walkPages(
    async (page) => {
      const query = { size: PAGE_SIZE, ...req.query, page: String(page) };
      const { data } = await cloudRequest(client, { ...req, query }, () => undefined);
      const d = data as Partial<WorkflowListData> | null;
      if (!d || !Array.isArray(d.lists) || typeof d.count !== 'number')
        throw new ServiceError(
          said`${PAGED_ENDPOINT}: page ${page} has no lists and count to walk`,
          PAGED_ENDPOINT,
          200,
          200,
        );
      return d as WorkflowListData;
    },
    take,
    Number.isInteger(first) && first > 0 ? first : 1,
  );
}
