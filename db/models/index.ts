export { ApiCredential } from './ApiCredential';
export { Dataset, DatasetMember, DATASET_STATUSES, type DatasetRole, type DatasetStatus } from './Dataset';
export { Organization } from './Organization';
export { Session } from './Session';
export { Task, TASK_STATUSES, TASK_TYPES, type TaskStatus, type TaskType } from './Task';
export { User } from './User';
export { Workspace, WorkspaceMember, type WorkspaceRole } from './Workspace';
