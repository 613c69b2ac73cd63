import { ServiceError } from '../errors.js';
import type { WorkflowInstance, WorkflowListData } from '../schemas/workflow.js';

/** A walk ends here whatever the service answers: 10,000 pages of anything is not a list. */
const MAX_PAGES = 10_000;

const ENDPOINT = 'GET /service/cloud/workflow/instancelist';

/**
 * Every page of the workflow instance list. The spec gives `count` as the overall number and no
 * page size limit, so the walk asks for the next page until it holds `count` distinct instances
 * or a page comes back empty, whatever size the service serves (a page smaller than asked is not
 * the end). A page that brings nothing new (a service that ignores `page` and repeats itself)
 * ends the walk with an error instead of a loop or a silently short list.
 */
export async function walkPages(
  fetchPage: (page: number) => Promise<WorkflowListData>,
  firstPage = 1,
): Promise<{ lists: WorkflowInstance[]; count: number }> {
  const held = new Map<string, WorkflowInstance>();
  let count = 0;
  for (let page = firstPage; page < firstPage + MAX_PAGES; page++) {
    const data = await fetchPage(page);
    count = data.count;
    if (data.lists.length === 0) break;
    let fresh = 0;
    for (const w of data.lists) {
      if (!held.has(w.workflow_id)) {
        held.set(w.workflow_id, w);
        fresh++;
      }
    }
    if (held.size >= count) break;
    if (fresh === 0) {
      throw new ServiceError(
        `${ENDPOINT}: page ${page} repeated instances already listed (${held.size} of count ${count} held): the service seems to ignore \`page\`; listing stopped rather than loop. \`workflow list --size N\` with N >= ${count} asks for one page`,
        ENDPOINT,
        200,
        200,
        { page, held: held.size, count },
      );
    }
  }
  return { lists: [...held.values()], count };
}
