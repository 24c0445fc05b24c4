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
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.values(SEARCH_ATTRIBUTES).filter((key) => !(key.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return;
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
}
