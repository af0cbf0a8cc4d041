from harness.authoring.scenarios import solve


@solve
def orders_queue(aws, handles):
    aws.client("sqs").create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "60"})
