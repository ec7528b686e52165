import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { readFileSync } from 'node:fs';

/** Outputs of the stateful stack, as `cdk deploy --outputs-file` writes them or CloudFormation reports them. */
export interface StatefulOutputs {
  readonly SingleTableName?: string;
  readonly EventsTableName?: string;
  readonly IngestQueueUrl?: string;
  readonly DeadLetterQueueUrl?: string;
  readonly ExportsQueueUrl?: string;
  readonly ExportsDeadLetterQueueUrl?: string;
  readonly LakeQueueUrl?: string;
  readonly LakeDeadLetterQueueUrl?: string;
  /** The KMS key plugin config secrets are sealed with. */
  readonly PluginSecretsKeyArn?: string;
}

export const statefulStackName = 'FlockStateful';

export function outputsFromFile(path: string, stackName = statefulStackName): StatefulOutputs {
  const all = JSON.parse(readFileSync(path, 'utf8')) as Record<string, StatefulOutputs>;
  const outputs = all[stackName];
  if (!outputs) throw new Error(`${path} has no outputs for stack ${stackName}`);
  return outputs;
}

export async function outputsFromStack(
  stackName = statefulStackName,
  region?: string,
): Promise<StatefulOutputs> {
  const client = new CloudFormationClient(region ? { region } : {});
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs: Record<string, string> = {};
    for (const output of Stacks?.[0]?.Outputs ?? []) {
      if (output.OutputKey && output.OutputValue) outputs[output.OutputKey] = output.OutputValue;
    }
    return outputs;
  } finally {
    client.destroy();
  }
}
