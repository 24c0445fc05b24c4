import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Connection } from '@temporalio/client';

type HasOperatorService = Pick<Connection, 'operatorService'>;
import { temporal } from '@temporalio/proto';

/** Set on every task workflow so platform engineers can filter in the Temporal UI. */
export const SEARCH_ATTRIBUTES = {
  datasetId: defineSearchAttributeKey('DatasetId', SearchAttributeType.KEYWORD),
  taskType: defineSearchAttributeKey('TaskType', SearchAttributeType.KEYWORD),
  createdBy: defineSearchAttributeKey('CreatedBy', SearchAttributeType.KEYWORD),
};

/** Registers the project's search attributes in the namespace; a no-op when they exist. */
export async function ensureSearchAttributes(connection: HasOperatorService, namespace: string): Promise<void> {
  const missing = async () => {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    return Object.values(SEARCH_ATTRIBUTES).filter((key) => !(key.name in (existing.customAttributes ?? {})));
  };
  const toAdd = await missing();
  if (toAdd.length === 0) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        toAdd.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
      ),
    });
  } catch (error) {
    // The API and the worker may register at the same moment; only fail if something is still missing.
    if ((await missing()).length > 0) throw error;
  }
}
