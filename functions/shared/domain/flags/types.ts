/**
 * Feature flag shapes in PostHog's vocabulary (`posthog/models/feature_flag/feature_flag.py`, and the definitions posthog-node
 * evaluates locally), and the
 * input and output of one evaluation. Field names stay snake_case where they are PostHog's stored JSON,
 * so a flag read from storage or from `/flags/definitions` is used as it is.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Person or group properties, as stored and as sent by SDKs: any JSON, so values are checked at use. */
export type PropertyBag = Readonly<Record<string, unknown>>;

export type DateOperator = 'is_date_before' | 'is_date_after' | 'is_date_exact';

export type SemverOperator =
  | 'semver_eq'
  | 'semver_neq'
  | 'semver_gt'
  | 'semver_gte'
  | 'semver_lt'
  | 'semver_lte'
  | 'semver_tilde'
  | 'semver_caret'
  | 'semver_wildcard';

export interface PropertyFilter {
  readonly key: string;
  readonly value?: JsonValue;
  /** Absent means `exact`. Typed as string because stored flags may name operators we don't know. */
  readonly operator?: string | null;
  /** `person` (default), `group`, `cohort` (value = cohort id), `flag` (a flag dependency), `behavioral`. */
  readonly type?: string;
  readonly group_type_index?: number | null;
  /** Inside cohort property groups only: the leaf is inverted. */
  readonly negation?: boolean;
  readonly dependency_chain?: readonly string[];
}

/** A cohort's definition as `/flags/definitions?send_cohorts` carries it: AND/OR groups, nested. */
export interface PropertyGroup {
  readonly type: string;
  readonly values: readonly (PropertyGroup | PropertyFilter)[];
}

export interface FlagCondition {
  readonly properties?: readonly PropertyFilter[] | null;
  /** Null or absent means 100 %. */
  readonly rollout_percentage?: number | null;
  /** A variant key forced for everyone this condition matches. */
  readonly variant?: string | null;
  /** Mixed targeting: a condition aggregated by another group type than the flag's. */
  readonly aggregation_group_type_index?: number | null;
}

export interface MultivariateVariant {
  readonly key: string;
  readonly name?: string | null;
  readonly rollout_percentage: number;
}

export interface FlagHoldout {
  readonly id: number;
  readonly exclusion_percentage: number;
}

export interface FlagFilters {
  /** The release conditions, OR-ed. A flag without this key is a legacy flag (see `conditionsOf`). */
  readonly groups?: readonly FlagCondition[];
  /** Legacy flags only: the properties of their single condition. */
  readonly properties?: readonly PropertyFilter[];
  readonly multivariate?: { readonly variants: readonly MultivariateVariant[] } | null;
  /** Keyed by variant key, or `"true"` for a boolean flag. Returned as stored. */
  readonly payloads?: Readonly<Record<string, JsonValue>>;
  /** Set for group flags: the group type index whose key buckets the flag. */
  readonly aggregation_group_type_index?: number | null;
  /** Early-access enrollment (legacy form): its first group decides when its property is set. */
  readonly super_groups?: readonly FlagCondition[];
  /** Early-access enrollment (current form): the person property `$feature_enrollment/<key>` decides. */
  readonly feature_enrollment?: boolean | null;
  /** Experiment holdout (current form). */
  readonly holdout?: FlagHoldout | null;
  /** Experiment holdout (earlier form): the first group's rollout and variant. */
  readonly holdout_groups?: readonly FlagCondition[];
  /** Stop at the first condition whose properties match but whose rollout excludes the identifier. */
  readonly early_exit?: boolean;
}

export interface FeatureFlag {
  readonly id: number;
  readonly key: string;
  /** PostHog calls the description `name`. */
  readonly name?: string | null;
  readonly active: boolean;
  readonly deleted?: boolean;
  readonly ensure_experience_continuity?: boolean | null;
  /** Legacy flags only: the rollout of their single condition. */
  readonly rollout_percentage?: number | null;
  readonly filters: FlagFilters;
  readonly version?: number | null;
  /** `device_id` buckets person conditions by the device rather than the distinct id. */
  readonly bucketing_identifier?: string | null;
}

export interface FlagEvaluationInput {
  readonly distinctId: string;
  /** The request's `$device_id`, for flags bucketed by device. */
  readonly deviceId?: string | null;
  /** Stored person properties merged with the request's `person_properties` (the request winning). */
  readonly personProperties?: PropertyBag;
  /** Group type name → group key, as the request's `groups`. */
  readonly groups?: Readonly<Record<string, unknown>>;
  /** Group type name → properties, as the request's `group_properties`. */
  readonly groupProperties?: Readonly<Record<string, PropertyBag>>;
  /** Group type index (as a string, like `/flags/definitions`) → group type name. */
  readonly groupTypeMapping?: Readonly<Record<string, string>>;
  /** Flag key → stored hash key (experience continuity): hashed instead of the distinct id. */
  readonly hashKeyOverrides?: Readonly<Record<string, string>>;
  /** Cohort id → definition. A cohort missing here (static, behavioural, deleted) has no members. */
  readonly cohorts?: Readonly<Record<string, PropertyGroup>>;
  /** Membership of cohorts known by their stored members (static ones) for this person. */
  readonly cohortMembership?: (cohortId: string) => boolean | undefined;
  /** The clock for relative dates (`-7d`); now when absent. */
  readonly now?: Date;
}

export type FlagReasonCode =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'flag_disabled'
  | 'dependency_cycle_cohort'
  | 'unknown';

export interface FlagReason {
  readonly code: FlagReasonCode;
  readonly condition_index: number | null;
  readonly description: string | null;
}

/**
 * Why posthog-node's local evaluation would not have decided a filter itself (it would have asked the
 * server). Flock is the server, so the filter still gets an answer — the server's rule — and says so.
 */
export type UnresolvedCause =
  /** The property is absent: the server's rule for absent keys applies. */
  | 'missing_property'
  /** A date or version the SDK can't parse: the server's parser, or no match. */
  | 'unparsable_value'
  /** An operator the SDK doesn't know (`is_date_exact`, `icontains_multi`, or an unknown one). */
  | 'operator_not_in_sdk'
  /** A static, behavioural or unknown cohort: counted as not a member. */
  | 'cohort_not_evaluable'
  /** Flag-dependency filters are not evaluated here: counted as not matching. */
  | 'flag_dependency';

export interface FlagEvaluationResult {
  readonly key: string;
  readonly enabled: boolean;
  readonly variant: string | null;
  /** `payloads[variant]` or `payloads["true"]` as stored, for an enabled flag; otherwise null. */
  readonly payload: JsonValue | null;
  readonly reason: FlagReason;
  /** The evaluation threw (malformed definition, cohort cycle): the flag reads as disabled. */
  readonly failed: boolean;
  /** Filters decided by the server's rule where posthog-node would have deferred; absent when none. */
  readonly unresolved?: readonly UnresolvedCause[];
}

export interface FlagsEvaluation {
  /** Keyed by flag key; deleted and inactive flags are left out, as PostHog does. */
  readonly flags: Readonly<Record<string, FlagEvaluationResult>>;
  readonly errorsWhileComputingFlags: boolean;
}
