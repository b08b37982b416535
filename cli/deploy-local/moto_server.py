"""moto's server, with the CloudFormation resources telealert's stack needs.

Usage: python3 moto_server.py HOST PORT

Used by `npm run deploy:local` and the end-to-end suite, which deploy the stack with the real
`cdk deploy`. moto 5.2.1's CloudFormation skips some resource types while reporting success, and
drops some properties of others. This launcher registers CloudFormation models for the types the
stack uses (moto builds its type map from the subclasses of `CloudFormationModel`, so defining
them before the server starts is enough) and wraps two models' create and update to apply what
they drop. Everything else is moto's own.

- AWS::SNS::Subscription (with its filter policy, scope and raw delivery)
- AWS::SNS::TopicPolicy, AWS::SQS::QueuePolicy
- AWS::Lambda::EventInvokeConfig
- AWS::CloudWatch::Alarm
- AWS::Chatbot::SlackChannelConfiguration, AWS::Chatbot::MicrosoftTeamsChannelConfiguration,
  AWS::Chatbot::CustomAction: moto has no chat service. They are kept as declared, with the ARN
  AWS would give them (`Ref`, `Arn`, `CustomActionArn`), so the rest of the stack deploys and
  the rehearsal can say which chat channel would receive which topic; nothing is posted
- AWS::Lambda::Function: `Architectures`
- AWS::DynamoDB::Table: `TimeToLiveSpecification`, `PointInTimeRecoverySpecification`,
  `SSESpecification` (moto reads it in the API's shape, `Enabled`, not CloudFormation's
  `SSEEnabled`)

and two CloudWatch actions moto leaves unimplemented, which the runbook uses to mute an alarm
while someone works on it: `DisableAlarmActions`, `EnableAlarmActions`.

A DynamoDB stream's event source mapping is kept as created, but a write to the table does not
try to invoke its function (moto would start a Docker container; without one, it logs to a log
group that may not exist and fails the write): the stream keeps its records, and the caller
delivers them, as `cli/deploy-local/stream.ts` `StreamMapping` does.

It runs the server on one thread: moto's DynamoDB does not serialise a condition check with its
write, so two racing conditional writes could both succeed on a threaded server (never on
DynamoDB), and the suite's concurrency tests must stay honest.

The models use moto's internals, so moto is pinned: another version exits at once with the
install line rather than deploying something different.
"""

import json
import os
import signal
import sys
from typing import Any

import moto

PINNED_MOTO = "5.2.1"
if moto.__version__ != PINNED_MOTO:
    sys.exit(
        f"moto {moto.__version__} is installed; telealert's deploys need moto {PINNED_MOTO}: "
        f"python3 -m pip install 'moto[server]=={PINNED_MOTO}'"
    )

from moto.awslambda.models import LambdaBackend, LambdaFunction, lambda_backends  # noqa: E402
from moto.cloudwatch.models import (  # noqa: E402
    Dimension,
    Metric,
    MetricDataQuery,
    MetricStat,
    cloudwatch_backends,
)
from moto.cloudwatch.responses import CloudWatchResponse  # noqa: E402
from moto.core.common_models import CloudFormationModel  # noqa: E402
from moto.core.responses import EmptyResult  # noqa: E402
from moto.dynamodb.models import dynamodb_backends  # noqa: E402
from moto.dynamodb.models.table import Table  # noqa: E402
from moto.sns.models import sns_backends  # noqa: E402
from moto.sqs.models import sqs_backends  # noqa: E402


def _props(cloudformation_json: dict[str, Any]) -> dict[str, Any]:
    return cloudformation_json.get("Properties", {})


def _as_json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


class _Model:
    """What the models below share: `Ref` returns `physical_resource_id`; an update replaces.

    Not a `CloudFormationModel` itself: moto lists only that class's direct subclasses.
    """

    def __init__(self, physical_resource_id: str, properties: dict[str, Any]):
        self.physical_resource_id = physical_resource_id
        self.properties = properties

    @staticmethod
    def cloudformation_name_type() -> str:
        return ""

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return False

    def is_created(self) -> bool:
        return True

    @classmethod
    def update_from_cloudformation_json(  # type: ignore[misc]
        cls,
        original_resource: "_Model",
        new_resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
    ) -> "_Model":
        original_resource.delete(account_id, region_name)
        return cls.create_from_cloudformation_json(
            new_resource_name, cloudformation_json, account_id, region_name
        )

    def delete(self, account_id: str, region_name: str) -> None:
        raise NotImplementedError


class SnsSubscription(_Model, CloudFormationModel):
    # moto files each model under its service, read from the module's second part.
    __module__ = "telealert.sns"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SNS::Subscription"

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "SnsSubscription":
        p = _props(cloudformation_json)
        backend = sns_backends[account_id][p.get("Region", region_name)]
        subscription = backend.subscribe(p["TopicArn"], p["Endpoint"], p["Protocol"])
        # The scope first: moto validates a filter policy against the scope already set.
        for name in ("FilterPolicyScope", "FilterPolicy", "RawMessageDelivery", "RedrivePolicy"):
            if name in p:
                value = p[name]
                if name == "RawMessageDelivery":
                    value = str(value).lower() == "true"
                elif name in ("FilterPolicy", "RedrivePolicy"):
                    value = _as_json(value)
                backend.set_subscription_attributes(subscription.arn, name, value)
        return cls(subscription.arn, p)

    def delete(self, account_id: str, region_name: str) -> None:
        region = self.physical_resource_id.split(":")[3]
        sns_backends[account_id][region].unsubscribe(self.physical_resource_id)


class SnsTopicPolicy(_Model, CloudFormationModel):
    __module__ = "telealert.sns"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SNS::TopicPolicy"

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "SnsTopicPolicy":
        p = _props(cloudformation_json)
        backend = sns_backends[account_id][region_name]
        for arn in p["Topics"]:
            backend.get_topic(arn).policy = _as_json(p["PolicyDocument"])
        return cls(resource_name, p)

    def delete(self, account_id: str, region_name: str) -> None:
        backend = sns_backends[account_id][region_name]
        for arn in self.properties["Topics"]:
            if arn in backend.topics:
                topic = backend.topics[arn]
                topic._policy_json = topic._create_default_topic_policy(
                    region_name, account_id, topic.name
                )


class SqsQueuePolicy(_Model, CloudFormationModel):
    __module__ = "telealert.sqs"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::SQS::QueuePolicy"

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "SqsQueuePolicy":
        p = _props(cloudformation_json)
        backend = sqs_backends[account_id][region_name]
        for url in p["Queues"]:
            backend.set_queue_attributes(
                url.rstrip("/").split("/")[-1], {"Policy": _as_json(p["PolicyDocument"])}
            )
        return cls(resource_name, p)

    def delete(self, account_id: str, region_name: str) -> None:
        backend = sqs_backends[account_id][region_name]
        for url in self.properties["Queues"]:
            name = url.rstrip("/").split("/")[-1]
            if name in backend.queues:
                backend.set_queue_attributes(name, {"Policy": ""})


class LambdaEventInvokeConfig(_Model, CloudFormationModel):
    __module__ = "telealert.awslambda"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::Lambda::EventInvokeConfig"

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "LambdaEventInvokeConfig":
        p = _props(cloudformation_json)
        config = {
            name: p[name]
            for name in ("MaximumRetryAttempts", "MaximumEventAgeInSeconds", "DestinationConfig")
            if name in p
        }
        backend = lambda_backends[account_id][region_name]
        backend.put_function_event_invoke_config(p["FunctionName"], config)
        return cls(f"{p['FunctionName']}:{p.get('Qualifier', '$LATEST')}", p)

    def delete(self, account_id: str, region_name: str) -> None:
        backend = lambda_backends[account_id][region_name]
        name = self.properties["FunctionName"]
        if any(fn.function_name == name for fn in backend.list_functions()):
            backend.delete_function_event_invoke_config(name)


class _ChatModel(_Model):
    """A chat resource kept as declared: moto has no chat service to hand it to."""

    # What the resource's ARN says of it, after `arn:aws:chatbot::ACCOUNT:`.
    kind = ""
    name_property = ""

    def __init__(self, physical_resource_id: str, properties: dict[str, Any]):
        super().__init__(physical_resource_id, properties)
        self.arn = physical_resource_id

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return attr in ("Arn", "CustomActionArn")

    def get_cfn_attribute(self, attribute_name: str) -> str:
        return self.arn

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "_ChatModel":
        p = _props(cloudformation_json)
        name = p.get(cls.name_property) or resource_name
        return cls(f"arn:aws:chatbot::{account_id}:{cls.kind}/{name}", p)

    def delete(self, account_id: str, region_name: str) -> None:
        return None


class ChatbotSlackChannelConfiguration(_ChatModel, CloudFormationModel):
    __module__ = "telealert.chatbot"
    kind = "chat-configuration/slack-channel"
    name_property = "ConfigurationName"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::Chatbot::SlackChannelConfiguration"


class ChatbotMicrosoftTeamsChannelConfiguration(_ChatModel, CloudFormationModel):
    __module__ = "telealert.chatbot"
    kind = "chat-configuration/microsoft-teams-channel"
    name_property = "ConfigurationName"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::Chatbot::MicrosoftTeamsChannelConfiguration"


class ChatbotCustomAction(_ChatModel, CloudFormationModel):
    __module__ = "telealert.chatbot"
    kind = "custom-action"
    name_property = "ActionName"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::Chatbot::CustomAction"


def _metric_data_queries(metrics: list[dict[str, Any]]) -> list[MetricDataQuery]:
    """An alarm's `Metrics` (metric math), as moto's PutMetricAlarm handler builds them."""
    queries = []
    for metric in metrics:
        stat = metric.get("MetricStat")
        metric_stat = None
        if stat:
            metric_stat = MetricStat(
                metric=Metric(
                    metric_name=stat["Metric"]["MetricName"],
                    namespace=stat["Metric"].get("Namespace"),
                    dimensions=[
                        Dimension(d["Name"], d["Value"])
                        for d in stat["Metric"].get("Dimensions", [])
                    ],
                ),
                period=stat.get("Period"),
                stat=stat.get("Stat"),
                unit=stat.get("Unit"),
            )
        queries.append(
            MetricDataQuery(
                query_id=metric["Id"],
                label=metric.get("Label"),
                period=metric.get("Period"),
                return_data=metric.get("ReturnData"),
                expression=metric.get("Expression"),
                metric_stat=metric_stat,
            )
        )
    return queries


class CloudWatchAlarm(_Model, CloudFormationModel):
    __module__ = "telealert.cloudwatch"

    @staticmethod
    def cloudformation_type() -> str:
        return "AWS::CloudWatch::Alarm"

    @staticmethod
    def cloudformation_name_type() -> str:
        return "AlarmName"

    @classmethod
    def has_cfn_attr(cls, attr: str) -> bool:
        return attr == "Arn"

    def get_cfn_attribute(self, attribute_name: str) -> str:
        return self.arn

    @classmethod
    def create_from_cloudformation_json(  # type: ignore[misc]
        cls,
        resource_name: str,
        cloudformation_json: dict[str, Any],
        account_id: str,
        region_name: str,
        **kwargs: Any,
    ) -> "CloudWatchAlarm":
        p = _props(cloudformation_json)
        alarm = cloudwatch_backends[account_id][region_name].put_metric_alarm(
            name=resource_name,
            namespace=p.get("Namespace"),
            metric_name=p.get("MetricName"),
            metric_data_queries=_metric_data_queries(p["Metrics"]) if "Metrics" in p else None,
            comparison_operator=p["ComparisonOperator"],
            evaluation_periods=int(p["EvaluationPeriods"]),
            datapoints_to_alarm=p.get("DatapointsToAlarm"),
            period=p.get("Period"),
            threshold=p.get("Threshold"),
            statistic=p.get("Statistic"),
            extended_statistic=p.get("ExtendedStatistic"),
            description=p.get("AlarmDescription"),
            dimensions=p.get("Dimensions", []),
            alarm_actions=p.get("AlarmActions", []),
            ok_actions=p.get("OKActions", []),
            insufficient_data_actions=p.get("InsufficientDataActions", []),
            unit=p.get("Unit"),
            actions_enabled=str(p.get("ActionsEnabled", True)).lower() == "true",
            treat_missing_data=p.get("TreatMissingData"),
            evaluate_low_sample_count_percentile=p.get("EvaluateLowSampleCountPercentile"),
            threshold_metric_id=p.get("ThresholdMetricId"),
        )
        model = cls(resource_name, p)
        model.arn = alarm.alarm_arn
        return model

    def delete(self, account_id: str, region_name: str) -> None:
        cloudwatch_backends[account_id][region_name].delete_alarms([self.physical_resource_id])


_create_function = LambdaFunction.create_from_cloudformation_json.__func__
_update_function = LambdaFunction.update_from_cloudformation_json.__func__


def _with_architectures(fn: LambdaFunction, cloudformation_json: dict[str, Any]) -> LambdaFunction:
    fn.architectures = _props(cloudformation_json).get("Architectures", ["x86_64"])
    return fn


def create_function(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
    fn = _create_function(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs)
    return _with_architectures(fn, cloudformation_json)


def update_function(
    cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name
):
    fn = _update_function(
        cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name
    )
    return _with_architectures(fn, cloudformation_json)


LambdaFunction.create_from_cloudformation_json = classmethod(create_function)
LambdaFunction.update_from_cloudformation_json = classmethod(update_function)

_create_table = Table.create_from_cloudformation_json.__func__


def _apply_table_settings(table: Table, p: dict[str, Any]) -> None:
    backend = dynamodb_backends[table.account_id][table.region_name]
    ttl = p.get("TimeToLiveSpecification")
    if ttl:
        backend.update_time_to_live(table.name, ttl)
    pitr = p.get("PointInTimeRecoverySpecification")
    if pitr:
        backend.update_continuous_backups(table.name, pitr)


def _api_sse(p: dict[str, Any]) -> dict[str, Any] | None:
    sse = p.get("SSESpecification")
    if not sse:
        return None
    api = {"Enabled": bool(sse.get("SSEEnabled"))}
    for name in ("SSEType", "KMSMasterKeyId"):
        if name in sse:
            api[name] = sse[name]
    return api


def create_table(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
    p = _props(cloudformation_json)
    shaped = {**cloudformation_json, "Properties": {**p, "SSESpecification": _api_sse(p)}}
    table = _create_table(cls, resource_name, shaped, account_id, region_name, **kwargs)
    _apply_table_settings(table, p)
    return table


def update_table(
    cls, original_resource, new_resource_name, cloudformation_json, account_id, region_name
):
    """In place, as CloudFormation updates these settings (moto has no update for a table)."""
    p = _props(cloudformation_json)
    original_resource.sse_specification = _api_sse(p)
    _apply_table_settings(original_resource, p)
    return original_resource


Table.create_from_cloudformation_json = classmethod(create_table)
Table.update_from_cloudformation_json = classmethod(update_table)


def _set_alarm_actions(response: CloudWatchResponse, enabled: bool) -> EmptyResult:
    """Turns the named alarms' actions on or off; unknown names are ignored, as CloudWatch does."""
    alarms = response.cloudwatch_backend.alarms
    for name in response._get_param("AlarmNames", []):
        if name in alarms:
            alarms[name].actions_enabled = enabled
    return EmptyResult()


CloudWatchResponse.disable_alarm_actions = lambda self: _set_alarm_actions(self, False)
CloudWatchResponse.enable_alarm_actions = lambda self: _set_alarm_actions(self, True)


def send_dynamodb_items(self, function_arn: str, items: list[Any], source: str) -> str:
    """Invokes nothing, and says so (an empty result keeps the records in the stream)."""
    return ""


LambdaBackend.send_dynamodb_items = send_dynamodb_items


def main() -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        create_backend_app,
    )
    from werkzeug.serving import run_simple

    host, port = sys.argv[1], int(sys.argv[2])
    # Stopped by its caller (SIGTERM) or a Ctrl-C that reached it: leave at once, quietly (no
    # KeyboardInterrupt traceback in the user's terminal; the state is in memory only).
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, lambda *_: os._exit(0))
    run_simple(host, port, DomainDispatcherApplication(create_backend_app), threaded=False)


if __name__ == "__main__":
    main()

