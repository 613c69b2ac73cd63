import { ServiceError } from '../errors.js';
import type { WorkflowInstance, WorkflowListData } from '../schemas/workflow.js';
import { said } from '../said.js';
import { PAGED_ENDPOINT as ENDPOINT } from './reads.js';

/** A walk ends here whatever the service answers: 10,000 pages of anything is not a list. */
const MAX_PAGES = 10_000;

/**
 * Every page of the workflow instance list. The spec gives `count` as the overall number and no
 * page size limit, so the walk asks for the next page until it has seen `count` distinct instances
 * or a page comes back empty, whatever size the service serves (a page smaller than asked is not
 * the end). A page that brings nothing new (a service that ignores `page` and repeats itself)
 * ends the walk with an error instead of a loop or a silently short list.
 *
 * Each page's new instances (those not seen on an earlier page, in order) go to `take` as the
 * walk goes, so that a caller can write them out without holding the list; only their ids are
 * kept. Returns `count` as the last page gave it.
 */
export async function walkPages(
  fetchPage: (page: number) => Promise<WorkflowListData>,
  take: (fresh: WorkflowInstance[]) => void | Promise<void>,
  firstPage = 1,
): Promise<number> {
  const seen = new Set<string>();
  let count = 0;
  for (let page = firstPage; page < firstPage + MAX_PAGES; page++) {
    const data = await fetchPage(page);
    count = data.count;
    if (data.lists.length === 0) break;
    const fresh: WorkflowInstance[] = [];
    for (const w of data.lists) {
      if (!seen.has(w.workflow_id)) {
        seen.add(w.workflow_id);
        fresh.push(w);
      }
    }
    if (fresh.length) await take(fresh);
    if (seen.size >= count) break;
    if (fresh.length === 0) {
      throw new ServiceError(
        said`${ENDPOINT}: page ${page} repeated instances already listed (${seen.size} of count ${count} held): the service seems to ignore \`page\`; listing stopped rather than loop. \`workflow list --size N\` with N >= ${count} asks for one page`,
        ENDPOINT,
        200,
        200,
        { page, held: seen.size, count },
      );
    }
  }
  return count;
}
