import Hummingbird

/// Namespace of the feed's route groups; `buildRouter` registers each.
enum FeedRoutes {}
